import { http, HttpResponse, delay } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ConfluenceClient,
  type ConfluenceClientOptions,
  WikiAuthError,
  WikiError,
  type WikiPage,
  WikiUpstreamError,
  normalizeWikiBaseUrl,
  parseLinkNext,
  parseRetryAfter,
} from './confluence-client.ts';
import { generateSpace, startFakeConfluence, type FakeConfluence } from '../../test/fakes/fake-confluence.ts';

const SITE = 'https://acme.atlassian.net';
const API = `${SITE}/wiki/api/v2`;
const EMAIL = 'importer@acme.test';
const TOKEN = 'ATATT3xFfGF0-secret-token-value-1234567890';
const CREDENTIALS = Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64');

interface SeenRequest {
  url: URL;
  authorization: string | null;
  accept: string | null;
  userAgent: string | null;
}

let seen: SeenRequest[] = [];

function record(request: Request): URL {
  const url = new URL(request.url);
  seen.push({
    url,
    authorization: request.headers.get('authorization'),
    accept: request.headers.get('accept'),
    userAgent: request.headers.get('user-agent'),
  });
  return url;
}

const server = setupServer();

beforeAll(() =>
  server.listen({
    // The fake Confluence server runs on loopback: let those requests through.
    onUnhandledRequest(request, print) {
      const { hostname } = new URL(request.url);
      if (hostname === '127.0.0.1' || hostname === 'localhost') return;
      print.error();
    },
  }),
);
afterEach(() => {
  server.resetHandlers();
  seen = [];
});
afterAll(() => server.close());

let sleeps: number[] = [];
afterEach(() => {
  sleeps = [];
});

function client(options: Partial<ConfluenceClientOptions> = {}): ConfluenceClient {
  return new ConfluenceClient({
    baseUrl: SITE,
    email: EMAIL,
    apiToken: TOKEN,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
}

/** A page object as Confluence v2 lists it. */
function pageJson(id: number, extra: Record<string, unknown> = {}) {
  return {
    id: String(id),
    status: 'current',
    title: `Page ${id}`,
    spaceId: '42',
    parentId: id === 1 ? null : '1',
    parentType: id === 1 ? null : 'page',
    position: 100 + id,
    authorId: '712020:abc',
    ownerId: '712020:abc',
    lastOwnerId: null,
    createdAt: '2026-03-19T14:26:45.468Z',
    version: {
      number: id + 1,
      message: '',
      minorEdit: false,
      authorId: '712020:abc',
      createdAt: '2026-03-19T14:26:50.452Z',
    },
    body: { storage: { representation: 'storage', value: `<p>Body of page ${id}</p>` } },
    _links: {
      editui: `/pages/resumedraft.action?draftId=${id}`,
      webui: `/spaces/ENG/pages/${id}/Page+${id}`,
      edituiv2: `/spaces/ENG/pages/edit-v2/${id}`,
      tinyui: '/x/dIAE',
    },
    ...extra,
  };
}

const spaceJson = {
  id: '42',
  key: 'ENG',
  name: 'Engineering',
  type: 'global',
  status: 'current',
  _links: { webui: '/spaces/ENG' },
};

/** Serves the listing of space 42 from `responses`, by cursor: '' is the first request. */
function listingHandler(
  responses: Record<string, { ids: number[]; next?: string; link?: string; base?: string }>,
  site = SITE,
) {
  return http.get(`${site}/wiki/api/v2/spaces/42/pages`, ({ request }) => {
    const url = record(request);
    const response = responses[url.searchParams.get('cursor') ?? ''];
    if (response === undefined)
      return HttpResponse.json({ errors: [{ status: 400, title: 'Bad cursor' }] }, { status: 400 });
    const links: Record<string, string> = { base: response.base ?? `${SITE}/wiki` };
    if (response.next !== undefined) links.next = response.next;
    return HttpResponse.json(
      { results: response.ids.map((id) => pageJson(id)), _links: links },
      { headers: response.link === undefined ? {} : { Link: response.link } },
    );
  });
}

async function collect(pages: AsyncGenerator<WikiPage[]>): Promise<WikiPage[][]> {
  const batches: WikiPage[][] = [];
  for await (const batch of pages) batches.push(batch);
  return batches;
}

function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

function expectNoSecrets(text: string): void {
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(CREDENTIALS);
}

describe('normalizeWikiBaseUrl', () => {
  it.each([
    'https://acme.atlassian.net',
    'https://acme.atlassian.net/',
    'https://acme.atlassian.net/wiki',
    'https://acme.atlassian.net/wiki/',
    'https://acme.atlassian.net/wiki//',
    ' https://acme.atlassian.net/WIKI ',
    'https://acme.atlassian.net/wiki/spaces/ENG/overview?mode=global#top',
  ])('%s', (base) => {
    expect(normalizeWikiBaseUrl(base)).toEqual({
      site: 'https://acme.atlassian.net',
      wikiBase: 'https://acme.atlassian.net/wiki',
    });
  });

  it('keeps a path prefix and a port', () => {
    expect(normalizeWikiBaseUrl('http://127.0.0.1:8123/')).toEqual({
      site: 'http://127.0.0.1:8123',
      wikiBase: 'http://127.0.0.1:8123/wiki',
    });
    expect(normalizeWikiBaseUrl('https://proxy.internal/confluence/wiki/')).toEqual({
      site: 'https://proxy.internal/confluence',
      wikiBase: 'https://proxy.internal/confluence/wiki',
    });
  });

  it('rejects what is not an http(s) URL, and URLs with credentials, without echoing them', () => {
    expect(() => normalizeWikiBaseUrl('acme.atlassian.net')).toThrow(/WIKI_BASE_URL is not a valid URL/);
    expect(() => normalizeWikiBaseUrl('ftp://acme.atlassian.net')).toThrow(/http or https/);
    let error: unknown;
    try {
      normalizeWikiBaseUrl(`https://me:${TOKEN}@acme.atlassian.net/wiki`);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WikiError);
    expect((error as WikiError).transient).toBe(false);
    expect((error as Error).message).toMatch(/must not contain credentials/);
    expectNoSecrets((error as Error).message);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');

  it('reads delta seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
  });

  it('reads an HTTP date; a past date means now', () => {
    expect(parseRetryAfter('Fri, 01 May 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Fri, 01 May 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot use', () => {
    for (const value of [null, undefined, '', 'soon', '-1', '1e3', 'NaN'])
      expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('parseLinkNext', () => {
  it('finds the rel="next" target among several links', () => {
    expect(
      parseLinkNext(
        '</wiki/api/v2/spaces/1/pages?cursor=abc&limit=5>; rel="next", <https://acme.atlassian.net/wiki>; rel="base"',
      ),
    ).toBe('/wiki/api/v2/spaces/1/pages?cursor=abc&limit=5');
    expect(parseLinkNext('<https://acme.atlassian.net/wiki>; rel="base"')).toBeUndefined();
    expect(parseLinkNext('</a>; rel=next')).toBe('/a');
    expect(parseLinkNext(null)).toBeUndefined();
  });
});

describe('ConfluenceClient.getSpace', () => {
  it.each([
    'https://acme.atlassian.net',
    'https://acme.atlassian.net/',
    'https://acme.atlassian.net/wiki',
    'https://acme.atlassian.net/wiki/',
  ])('looks the key up under /wiki/api/v2 with base URL %s', async (baseUrl) => {
    server.use(
      http.get(`${API}/spaces`, ({ request }) => {
        record(request);
        return HttpResponse.json({ results: [spaceJson], _links: { base: `${SITE}/wiki` } });
      }),
    );
    const space = await client({ baseUrl }).getSpace('ENG');
    expect(space).toEqual({ id: '42', key: 'ENG', name: 'Engineering' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url.href).toBe(`${API}/spaces?keys=ENG`);
    expect(seen[0]?.authorization).toBe(`Basic ${CREDENTIALS}`);
    expect(seen[0]?.accept).toBe('application/json');
    expect(seen[0]?.userAgent).toMatch(/^kb-service-wiki-import\//);
  });

  it('prefers the result whose key matches exactly', async () => {
    server.use(
      http.get(`${API}/spaces`, () =>
        HttpResponse.json({ results: [{ ...spaceJson, id: '7', key: 'ENGX' }, spaceJson] }),
      ),
    );
    expect(await client().getSpace('ENG')).toEqual({ id: '42', key: 'ENG', name: 'Engineering' });
  });

  it('returns null when no space has the key, or on a 404', async () => {
    server.use(http.get(`${API}/spaces`, () => HttpResponse.json({ results: [], _links: {} })));
    expect(await client().getSpace('NOPE')).toBeNull();

    server.use(
      http.get(`${API}/spaces`, () =>
        HttpResponse.json({ errors: [{ status: 404, code: 'NOT_FOUND', title: 'Not Found' }] }, { status: 404 }),
      ),
    );
    expect(await client().getSpace('NOPE')).toBeNull();
  });

  it('rejects a malformed JSON body without retrying', async () => {
    server.use(
      http.get(`${API}/spaces`, ({ request }) => {
        record(request);
        return new HttpResponse('{"results": [', { headers: { 'Content-Type': 'application/json' } });
      }),
    );
    const error = await errorOf(client().getSpace('ENG'));
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect(error).toMatchObject({ transient: false });
    expect((error as Error).message).toMatch(/GET \/wiki\/api\/v2\/spaces with a body that is not valid JSON/);
    expect(seen).toHaveLength(1);
  });

  it('rejects an HTML page with a hint about the base URL', async () => {
    server.use(http.get(`${API}/spaces`, () => HttpResponse.html('<html><body>Log in</body></html>')));
    const error = await errorOf(client().getSpace('ENG'));
    expect((error as Error).message).toMatch(/not valid JSON \(text\/html.*check that WIKI_BASE_URL/);
  });

  it('rejects an unexpected shape, naming what is wrong', async () => {
    server.use(http.get(`${API}/spaces`, () => HttpResponse.json({ results: [{ id: '42', name: 'Engineering' }] })));
    const error = await errorOf(client().getSpace('ENG'));
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect((error as Error).message).toMatch(/unexpected response: results\.0\.key/);
  });

  it('refuses an empty key before sending anything', async () => {
    await expect(client().getSpace('  ')).rejects.toThrow(WikiError);
    expect(seen).toHaveLength(0);
  });
});

describe('ConfluenceClient.listPages: pagination', () => {
  it('follows _links.next to the end, one array per response, a short page not being the end', async () => {
    server.use(
      listingHandler({
        '': {
          ids: [1, 2, 3],
          next: '/wiki/api/v2/spaces/42/pages?body-format=storage&status=current&limit=3&cursor=c1',
        },
        c1: { ids: [4], next: '/wiki/api/v2/spaces/42/pages?body-format=storage&status=current&limit=3&cursor=c2' },
        c2: { ids: [5, 6] },
      }),
    );
    const batches = await collect(client({ pageLimit: 3 }).listPages('42'));

    expect(batches.map((batch) => batch.map((page) => page.id))).toEqual([['1', '2', '3'], ['4'], ['5', '6']]);
    expect(batches[0]?.[0]).toEqual({
      id: '1',
      title: 'Page 1',
      parentId: null,
      version: 2,
      body: '<p>Body of page 1</p>',
      url: 'https://acme.atlassian.net/wiki/spaces/ENG/pages/1/Page+1',
    });
    expect(batches[0]?.[1]).toMatchObject({ parentId: '1', version: 3 });

    expect(seen.map((r) => r.url.pathname + r.url.search)).toEqual([
      '/wiki/api/v2/spaces/42/pages?body-format=storage&status=current&limit=3',
      '/wiki/api/v2/spaces/42/pages?body-format=storage&status=current&limit=3&cursor=c1',
      '/wiki/api/v2/spaces/42/pages?body-format=storage&status=current&limit=3&cursor=c2',
    ]);
    for (const request of seen) expect(request.authorization).toBe(`Basic ${CREDENTIALS}`);
  });

  it('asks for 100 pages at a time by default', async () => {
    server.use(listingHandler({ '': { ids: [1] } }));
    await collect(client().listPages('42'));
    expect(seen[0]?.url.searchParams.get('limit')).toBe('100');
  });

  it('follows the Link header when the body has no next link', async () => {
    server.use(
      listingHandler({
        '': {
          ids: [1, 2],
          link: '</wiki/api/v2/spaces/42/pages?cursor=c1>; rel="next", <https://acme.atlassian.net/wiki>; rel="base"',
        },
        c1: { ids: [3] },
      }),
    );
    const batches = await collect(client().listPages('42'));
    expect(batches.flat().map((page) => page.id)).toEqual(['1', '2', '3']);
  });

  it('tolerates missing optional fields and extra ones, and skips pages that are not current', async () => {
    server.use(
      http.get(`${API}/spaces/42/pages`, () =>
        HttpResponse.json({
          results: [
            { id: 10, title: 'Bare', version: { number: 1 }, body: { storage: { value: '' } }, extra: { deep: [1] } },
            pageJson(11, { status: 'archived' }),
          ],
          someNewField: true,
        }),
      ),
    );
    const [batch] = await collect(client({ baseUrl: `${SITE}/wiki/` }).listPages('42'));
    expect(batch).toEqual([
      {
        id: '10',
        title: 'Bare',
        parentId: null,
        version: 1,
        body: '',
        url: 'https://acme.atlassian.net/wiki/pages/viewpage.action?pageId=10',
      },
    ]);
  });

  it('builds page links from _links.base', async () => {
    server.use(listingHandler({ '': { ids: [1], base: 'https://acme-renamed.atlassian.net/wiki' } }));
    const [batch] = await collect(client().listPages('42'));
    expect(batch?.[0]?.url).toBe('https://acme-renamed.atlassian.net/wiki/spaces/ENG/pages/1/Page+1');
  });

  it('keeps a path prefix when following next links', async () => {
    const proxy = 'https://proxy.internal/confluence';
    server.use(
      listingHandler(
        {
          '': { ids: [1], next: '/wiki/api/v2/spaces/42/pages?cursor=c1', base: `${proxy}/wiki` },
          c1: { ids: [2], next: '/confluence/wiki/api/v2/spaces/42/pages?cursor=c2', base: `${proxy}/wiki` },
          c2: { ids: [3], base: `${proxy}/wiki` },
        },
        proxy,
      ),
    );
    const batches = await collect(client({ baseUrl: `${proxy}/wiki/` }).listPages('42'));
    expect(batches.flat().map((page) => page.id)).toEqual(['1', '2', '3']);
    expect(seen.map((r) => r.url.origin + r.url.pathname)).toEqual(
      Array(3).fill(`${proxy}/wiki/api/v2/spaces/42/pages`),
    );
    expect(batches[0]?.[0]?.url).toBe(`${proxy}/wiki/spaces/ENG/pages/1/Page+1`);
  });

  it('stops on a cursor loop', async () => {
    server.use(
      listingHandler({
        '': { ids: [1], next: '/wiki/api/v2/spaces/42/pages?cursor=c1' },
        c1: { ids: [2], next: '/wiki/api/v2/spaces/42/pages?cursor=c2' },
        c2: { ids: [3], next: '/wiki/api/v2/spaces/42/pages?cursor=c1' },
      }),
    );
    const batches: WikiPage[][] = [];
    const error = await errorOf(
      (async () => {
        for await (const batch of client().listPages('42')) batches.push(batch);
      })(),
    );
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect(error).toMatchObject({ transient: false });
    expect((error as Error).message).toMatch(/already followed \(cursor loop\)/);
    expect(seen).toHaveLength(3);
    expect(batches.flat().map((page) => page.id)).toEqual(['1', '2']);
  });

  it('refuses to send the credentials to another host', async () => {
    server.use(
      listingHandler({ '': { ids: [1], next: 'https://elsewhere.example/wiki/api/v2/spaces/42/pages?cursor=c1' } }),
    );
    const error = await errorOf(collect(client().listPages('42')));
    expect((error as Error).message).toMatch(/next link to another host/);
    expect(seen).toHaveLength(1);
  });

  it('stops a runaway listing', async () => {
    server.use(
      http.get(`${API}/spaces/42/pages`, ({ request }) => {
        const url = record(request);
        const n = Number(url.searchParams.get('cursor') ?? 0);
        return HttpResponse.json({
          results: [pageJson(2 * n + 1), pageJson(2 * n + 2)],
          _links: { next: `/wiki/api/v2/spaces/42/pages?cursor=${n + 1}` },
        });
      }),
    );
    const error = await errorOf(collect(client({ maxPages: 9 }).listPages('42')));
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect((error as Error).message).toMatch(/more than 9 pages; stopped it as a runaway listing/);
    expect(seen).toHaveLength(5);
  });

  it('fails on a 404 for the space, without retrying', async () => {
    server.use(
      http.get(`${API}/spaces/42/pages`, ({ request }) => {
        record(request);
        return HttpResponse.json({ errors: [{ status: 404, code: 'NOT_FOUND', title: 'Not Found' }] }, { status: 404 });
      }),
    );
    const error = await errorOf(collect(client().listPages('42')));
    expect(error).toMatchObject({ transient: false, status: 404 });
    expect((error as Error).message).toMatch(/HTTP 404: the space does not exist or the account cannot see it/);
    expect(seen).toHaveLength(1);
  });

  it('rejects a page without a storage body, naming the field', async () => {
    server.use(
      http.get(`${API}/spaces/42/pages`, () =>
        HttpResponse.json({ results: [pageJson(1), pageJson(2, { body: {} })] }),
      ),
    );
    const error = await errorOf(collect(client().listPages('42')));
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect((error as Error).message).toMatch(/unexpected response: results\.1\.body\.storage/);
  });
});

describe('ConfluenceClient.listPages: response size', () => {
  /** Every page body is 1,000 bytes, so a response's size follows the limit asked for. */
  function sizedListing() {
    return http.get(`${API}/spaces/42/pages`, ({ request }) => {
      const url = record(request);
      const limit = Number(url.searchParams.get('limit'));
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const ids = Array.from({ length: Math.min(limit, 20 - start) }, (_, i) => start + i + 1);
      const next =
        start + ids.length < 20
          ? `/wiki/api/v2/spaces/42/pages?cursor=${start + ids.length}&limit=${limit}`
          : undefined;
      return HttpResponse.json({
        results: ids.map((id) => pageJson(id, { body: { storage: { value: 'x'.repeat(1000) } } })),
        _links: next === undefined ? {} : { next },
      });
    });
  }

  it('asks again with half the limit while a listing response is too large', async () => {
    server.use(sizedListing());
    const warn = vi.fn();
    const batches = await collect(client({ pageLimit: 16, maxBytes: 5_000, logger: { warn } }).listPages('42'));

    expect(batches.flat().map((page) => Number(page.id))).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const limits = seen.map((r) => Number(r.url.searchParams.get('limit')));
    // 16, 8 and 4 pages are too large; 2 fit, and the rest of the listing keeps that limit.
    expect(limits.slice(0, 4)).toEqual([16, 8, 4, 2]);
    expect(new Set(limits.slice(3))).toEqual(new Set([2]));
    expect(sleeps).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(3);
    expect(warn.mock.calls[0]?.[0]).toMatchObject({ limit: 16, nextLimit: 8 });
  });

  it('fails when even one page is too large', async () => {
    server.use(sizedListing());
    const error = await errorOf(collect(client({ pageLimit: 4, maxBytes: 800 }).listPages('42')));
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect(error).toMatchObject({ transient: false });
    expect((error as Error).message).toMatch(/body larger than 800 bytes/);
    expect(seen.map((r) => Number(r.url.searchParams.get('limit')))).toEqual([4, 2, 1]);
  });

  it('stops reading an endless body at maxBytes', async () => {
    let pulled = 0;
    server.use(
      http.get(`${API}/spaces`, () => {
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled += 1024;
            controller.enqueue(new Uint8Array(1024).fill(0x20));
          },
        });
        return new HttpResponse(stream, { headers: { 'Content-Type': 'application/json' } });
      }),
    );
    const error = await errorOf(client({ maxBytes: 64 * 1024 }).getSpace('ENG'));
    expect((error as Error).message).toMatch(/larger than 65536 bytes/);
    expect(pulled).toBeLessThan(1024 * 1024);
  });

  it('refuses a declared Content-Length over maxBytes without reading the body', async () => {
    server.use(
      http.get(
        `${API}/spaces`,
        () => new HttpResponse('{"results": []}', { headers: { 'Content-Length': '999999999' } }),
      ),
    );
    const error = await errorOf(client({ maxBytes: 1000 }).getSpace('ENG'));
    expect((error as Error).message).toMatch(/larger than 1000 bytes/);
  });
});

describe('ConfluenceClient: retries', () => {
  /** Answers `failures` in turn, then the space. */
  function failingThen(failures: Array<() => Response>) {
    let calls = 0;
    return http.get(`${API}/spaces`, ({ request }) => {
      record(request);
      const failure = failures[calls++];
      return failure === undefined ? HttpResponse.json({ results: [spaceJson] }) : failure();
    });
  }

  it('honours Retry-After in seconds on a 429', async () => {
    server.use(failingThen([() => new HttpResponse(null, { status: 429, headers: { 'Retry-After': '7' } })]));
    expect(await client().getSpace('ENG')).toMatchObject({ id: '42' });
    expect(seen).toHaveLength(2);
    expect(sleeps).toEqual([7000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 30_000).toUTCString();
    server.use(failingThen([() => new HttpResponse(null, { status: 429, headers: { 'Retry-After': at } })]));
    await client().getSpace('ENG');
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThan(27_000);
    expect(sleeps[0]).toBeLessThanOrEqual(30_000);
  });

  it('caps a long Retry-After at 60 s', async () => {
    server.use(failingThen([() => new HttpResponse(null, { status: 429, headers: { 'Retry-After': '3600' } })]));
    await client().getSpace('ENG');
    expect(sleeps).toEqual([60_000]);
  });

  it('backs off exponentially with full jitter when there is no Retry-After', async () => {
    const rateLimited = () => HttpResponse.json({ message: 'Rate limit exceeded' }, { status: 429 });
    server.use(failingThen([rateLimited, rateLimited, rateLimited, rateLimited]));
    await client({ random: () => 0.5 }).getSpace('ENG');
    expect(sleeps).toEqual([500, 1000, 2000, 4000]);

    sleeps = [];
    server.use(failingThen([rateLimited, rateLimited]));
    await client({ random: () => 0.999 }).getSpace('ENG');
    expect(sleeps).toEqual([999, 1998]);

    sleeps = [];
    server.use(failingThen([rateLimited]));
    await client({ random: () => 0 }).getSpace('ENG');
    expect(sleeps).toEqual([0]);
  });

  it('never waits more than 30 s between attempts without Retry-After', async () => {
    const unavailable = () => new HttpResponse(null, { status: 503 });
    server.use(failingThen(Array(7).fill(unavailable)));
    await client({ maxAttempts: 8, random: () => 0.999 }).getSpace('ENG');
    expect(Math.max(...sleeps)).toBeLessThan(30_000);
    expect(sleeps.at(-1)).toBe(29_970);
  });

  it('retries 500s and then succeeds, logging each retry', async () => {
    const warn = vi.fn();
    server.use(
      failingThen([
        () => HttpResponse.json({ errors: [{ status: 500, title: 'Internal Server Error' }] }, { status: 500 }),
        () => new HttpResponse('<html>Bad gateway</html>', { status: 502 }),
      ]),
    );
    expect(await client({ logger: { warn } }).getSpace('ENG')).toMatchObject({ key: 'ENG' });
    expect(seen).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0]?.[0]).toMatchObject({
      path: '/wiki/api/v2/spaces',
      status: 500,
      attempt: 1,
      maxAttempts: 6,
      delayMs: 500,
    });
    expect(warn.mock.calls[0]?.[1]).toBe('Confluence request failed; retrying');
  });

  it('gives up after maxAttempts with a transient error that says what happened', async () => {
    server.use(
      http.get(`${API}/spaces`, ({ request }) => {
        record(request);
        return HttpResponse.json({ errors: [{ status: 503, title: 'Service Unavailable' }] }, { status: 503 });
      }),
    );
    const error = await errorOf(client({ maxAttempts: 4 }).getSpace('ENG'));
    expect(seen).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect(error).toMatchObject({ transient: true, status: 503 });
    expect((error as Error).message).toBe(
      'Confluence request GET /wiki/api/v2/spaces failed after 4 attempts: HTTP 503 (Service Unavailable)',
    );
  });

  it('retries network errors', async () => {
    server.use(failingThen([() => HttpResponse.error(), () => HttpResponse.error()]));
    expect(await client().getSpace('ENG')).toMatchObject({ key: 'ENG' });
    expect(seen).toHaveLength(3);

    seen = [];
    server.use(http.get(`${API}/spaces`, () => HttpResponse.error()));
    const error = await errorOf(client({ maxAttempts: 2 }).getSpace('ENG'));
    expect(error).toMatchObject({ transient: true, status: undefined });
    expect((error as Error).message).toMatch(/failed after 2 attempts: network error/);
  });

  it('retries a response that is too slow to start', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/spaces`, async ({ request }) => {
        record(request);
        if (++calls === 1) await delay('infinite');
        return HttpResponse.json({ results: [spaceJson] });
      }),
    );
    const started = Date.now();
    // Seconds, so that the healthy second answer cannot time out on a busy machine and be tried a third time.
    expect(await client({ timeoutMs: 3_000 }).getSpace('ENG')).toMatchObject({ key: 'ENG' });
    // The first answer never starts: only the timeout and the retry end the call (a wide bound for a busy machine).
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(seen).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it('counts the body in the timeout: a body that stalls is retried', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/spaces`, () => {
        if (++calls === 1) {
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"results": ['));
            },
          });
          return new HttpResponse(stream, { headers: { 'Content-Type': 'application/json' } });
        }
        return HttpResponse.json({ results: [spaceJson] });
      }),
    );
    const warn = vi.fn();
    // Seconds, so that the healthy second answer cannot time out on a busy machine; the first body never ends.
    expect(await client({ timeoutMs: 3_000, logger: { warn } }).getSpace('ENG')).toMatchObject({ key: 'ENG' });
    expect(calls).toBe(2);
    expect(warn.mock.calls[0]?.[0]).toMatchObject({ detail: 'timed out after 3000 ms' });
  });

  it('gives up on timeouts with a message that says so', async () => {
    server.use(
      http.get(`${API}/spaces`, async () => {
        await delay('infinite');
        return HttpResponse.json({ results: [] });
      }),
    );
    const error = await errorOf(client({ timeoutMs: 50, maxAttempts: 2 }).getSpace('ENG'));
    expect(error).toMatchObject({ transient: true });
    expect((error as Error).message).toBe(
      'Confluence request GET /wiki/api/v2/spaces failed after 2 attempts: timed out after 50 ms',
    );
  });

  it('does not retry other 4xx answers', async () => {
    server.use(
      http.get(`${API}/spaces`, ({ request }) => {
        record(request);
        return HttpResponse.json(
          { errors: [{ status: 400, code: 'INVALID_REQUEST_PARAMETER', title: 'Invalid keys', detail: null }] },
          { status: 400 },
        );
      }),
    );
    const error = await errorOf(client().getSpace('ENG'));
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(WikiUpstreamError);
    expect(error).toMatchObject({ transient: false, status: 400 });
    expect((error as Error).message).toBe(
      'Confluence answered GET /wiki/api/v2/spaces with HTTP 400 (Invalid keys: INVALID_REQUEST_PARAMETER)',
    );
  });

  it('does not follow redirects', async () => {
    server.use(
      http.get(
        `${API}/spaces`,
        () => new HttpResponse(null, { status: 302, headers: { Location: 'https://elsewhere.example/' } }),
      ),
    );
    const error = await errorOf(client().getSpace('ENG'));
    expect(error).toMatchObject({ transient: false, status: 302 });
    expect((error as Error).message).toMatch(/redirect \(HTTP 302\); set WIKI_BASE_URL/);
  });
});

describe('ConfluenceClient: credentials', () => {
  it('fails at once on a 401 with an actionable message', async () => {
    server.use(
      http.get(`${API}/spaces`, ({ request }) => {
        record(request);
        return HttpResponse.json({ code: 401, message: 'Unauthorized; scope does not match' }, { status: 401 });
      }),
    );
    const error = await errorOf(client().getSpace('ENG'));
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error).toBeInstanceOf(WikiAuthError);
    expect(error).toMatchObject({ status: 401, transient: false });
    expect((error as Error).message).toMatch(
      /^Confluence refused the credentials \(401\).*check WIKI_EMAIL and WIKI_API_TOKEN/,
    );
  });

  it('fails at once on a 403 saying the account lacks permission', async () => {
    server.use(
      http.get(`${API}/spaces/42/pages`, ({ request }) => {
        record(request);
        return HttpResponse.json({ errors: [{ status: 403, title: 'Forbidden' }] }, { status: 403 });
      }),
    );
    const error = await errorOf(collect(client().listPages('42')));
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(WikiAuthError);
    expect(error).toMatchObject({ status: 403, transient: false });
    expect((error as Error).message).toMatch(/\(403\).*lacks permission to read the space/);
  });

  it('keeps the token and the Authorization header out of errors and logs, even when echoed', async () => {
    const echo = `token ${TOKEN} header Basic ${CREDENTIALS}`;
    const warn = vi.fn();
    const debug = vi.fn();
    const logger = { warn, debug };

    server.use(
      http.get(`${API}/spaces`, () => HttpResponse.json({ errors: [{ status: 500, title: echo }] }, { status: 500 })),
    );
    const exhausted = await errorOf(client({ maxAttempts: 2, logger }).getSpace('ENG'));
    expect((exhausted as Error).message).toContain('[redacted]');

    server.use(http.get(`${API}/spaces`, () => HttpResponse.json({ message: echo }, { status: 400 })));
    const rejected = await errorOf(client({ logger }).getSpace('ENG'));

    server.use(http.get(`${API}/spaces`, () => HttpResponse.json({ message: echo }, { status: 401 })));
    const refused = await errorOf(client({ logger }).getSpace('ENG'));

    const failingFetch: typeof fetch = async (_input, init) => {
      throw new TypeError(
        `connect failed with ${String(new Headers(init?.headers).get('authorization'))} and ${TOKEN}`,
      );
    };
    const network = await errorOf(client({ maxAttempts: 2, logger, fetch: failingFetch }).getSpace('ENG'));
    expect((network as Error).message).toMatch(
      // The host it could not reach is named; the credentials it echoed are not.
      /network error: cannot reach acme\.atlassian\.net:443: connect failed with Basic \[redacted\] and \[redacted\]/,
    );

    for (const error of [exhausted, rejected, refused, network]) {
      expect(error).toBeInstanceOf(WikiError);
      expectNoSecrets((error as Error).message);
      expectNoSecrets(String((error as Error).stack));
    }
    expect(warn).toHaveBeenCalled();
    expect(debug).toHaveBeenCalled();
    expectNoSecrets(JSON.stringify([warn.mock.calls, debug.mock.calls]));
  });

  it('requires an email and a token', () => {
    expect(() => client({ email: ' ' })).toThrow(/WIKI_EMAIL is required/);
    expect(() => client({ apiToken: '' })).toThrow(/WIKI_API_TOKEN is required/);
    expect(() => client({ pageLimit: 251 })).toThrow(/pageLimit must be an integer from 1 to 250/);
  });
});

describe('ConfluenceClient: abort', () => {
  it('sends nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('job cancelled'));
    await expect(client().getSpace('ENG', controller.signal)).rejects.toThrow('job cancelled');
    await expect(collect(client().listPages('42', controller.signal))).rejects.toThrow('job cancelled');
    expect(seen).toHaveLength(0);
  });

  it('stops a request in flight', async () => {
    const controller = new AbortController();
    server.use(
      http.get(`${API}/spaces`, async ({ request }) => {
        record(request);
        // Cancelled once the request has arrived, not after a fixed time that a busy machine may not reach it in.
        controller.abort(new Error('job cancelled'));
        await delay('infinite');
        return HttpResponse.json({ results: [spaceJson] });
      }),
    );
    const started = Date.now();
    await expect(client().getSpace('ENG', controller.signal)).rejects.toThrow('job cancelled');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(seen).toHaveLength(1);
  });

  it('stops a wait between attempts', async () => {
    server.use(
      http.get(`${API}/spaces`, ({ request }) => {
        record(request);
        return new HttpResponse(null, { status: 429, headers: { 'Retry-After': '60' } });
      }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('job cancelled')), 50);
    const started = Date.now();
    // The default sleep, so the real wait (a minute) is what gets cut short.
    const real = new ConfluenceClient({ baseUrl: SITE, email: EMAIL, apiToken: TOKEN });
    await expect(real.getSpace('ENG', controller.signal)).rejects.toThrow('job cancelled');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(seen).toHaveLength(1);
  });

  it('stops a listing between responses', async () => {
    server.use(
      listingHandler({
        '': { ids: [1], next: '/wiki/api/v2/spaces/42/pages?cursor=c1' },
        c1: { ids: [2], next: '/wiki/api/v2/spaces/42/pages?cursor=c2' },
        c2: { ids: [3] },
      }),
    );
    const controller = new AbortController();
    const ids: string[] = [];
    const error = await errorOf(
      (async () => {
        for await (const batch of client().listPages('42', controller.signal)) {
          ids.push(...batch.map((page) => page.id));
          controller.abort(new Error('job cancelled'));
        }
      })(),
    );
    expect((error as Error).message).toBe('job cancelled');
    expect(ids).toEqual(['1']);
    expect(seen).toHaveLength(1);
  });
});

describe('ConfluenceClient against the fake Confluence server', () => {
  let fake: FakeConfluence;

  beforeAll(async () => {
    fake = await startFakeConfluence({ spaces: [generateSpace({ key: 'ENG', pages: 45, pageBytes: 3_000 })] });
  });
  afterAll(() => fake.close());
  afterEach(() => {
    fake.requests.length = 0;
  });

  const fakeClient = (options: Partial<ConfluenceClientOptions> = {}) =>
    client({ baseUrl: `${fake.url}/wiki/`, email: fake.email, apiToken: fake.apiToken, ...options });

  it('imports a whole space across several listing responses', async () => {
    const c = fakeClient({ pageLimit: 10 });
    const space = await c.getSpace('ENG');
    expect(space).toMatchObject({ key: 'ENG' });
    const batches = await collect(c.listPages(space!.id));

    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 10, 10, 5]);
    const expected = fake.spaces.get('ENG')!.pages;
    const pages = batches.flat();
    expect(pages.map((page) => page.id)).toEqual(expected.map((page) => page.id));
    expect(pages[3]).toEqual({
      id: expected[3]!.id,
      title: expected[3]!.title,
      parentId: expected[3]!.parentId,
      version: expected[3]!.version,
      body: expected[3]!.body,
      url: `${fake.url}/wiki/spaces/ENG/pages/${expected[3]!.id}/${expected[3]!.title.replace(/ /g, '+')}`,
    });
    expect(fake.requests).toHaveLength(6);
  });

  it('rides out rate limits, server errors, dropped connections and slow answers', async () => {
    const isListing = (path: string) => path.includes('/pages');
    fake.fault(isListing, { status: 429, retryAfter: '1' });
    fake.fault(isListing, { status: 500 }, 2);
    fake.fault(isListing, { reset: true });
    fake.fault(isListing, { delayMs: 60_000 });

    const space = await fakeClient().getSpace('ENG');
    // A timeout no answer of the fake comes near on a busy machine (a 200 ms one timed out
    // ordinary answers at load 18, retrying once more than counted), far below the slow answer.
    const pages = (await collect(fakeClient({ timeoutMs: 3_000, pageLimit: 25 }).listPages(space!.id))).flat();

    expect(pages).toHaveLength(45);
    expect(sleeps).toHaveLength(5);
    expect(sleeps[0]).toBe(1000);
    expect(fake.requests.filter((r) => isListing(r.path))).toHaveLength(7);
  });

  it('fails at once when the fake refuses the token', async () => {
    const error = await errorOf(fakeClient({ apiToken: 'wrong-token' }).getSpace('ENG'));
    expect(error).toBeInstanceOf(WikiAuthError);
    expect(fake.requests).toHaveLength(1);
  });

  it('returns null for an unknown space key', async () => {
    expect(await fakeClient().getSpace('NOPE')).toBeNull();
  });
});
