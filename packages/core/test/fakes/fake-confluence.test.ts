import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  FAKE_CONFLUENCE_API_TOKEN,
  FAKE_CONFLUENCE_EMAIL,
  type FakeConfluence,
  type FakeSpace,
  generateSpace,
  generateStoragePage,
  startFakeConfluence,
} from './fake-confluence.ts';

const AUTH = `Basic ${Buffer.from(`${FAKE_CONFLUENCE_EMAIL}:${FAKE_CONFLUENCE_API_TOKEN}`).toString('base64')}`;

function smallSpace(): FakeSpace {
  return {
    id: '294916',
    key: 'MFS',
    name: 'My first space',
    pages: [
      { id: '295028', title: 'My first space', parentId: null, version: 1, body: '<p>Home</p>' },
      { id: '295083', title: 'Template - Project plan', parentId: '295028', version: 3, body: '<p>Plan</p>' },
      { id: '295095', title: 'Template - Meeting notes', parentId: '295028', version: 1, body: '<p>Notes</p>' },
      { id: '13697025', title: 'Late page', parentId: '295083', version: 2, body: '<h2>Late</h2>' },
      { id: '295107', title: 'Weekly status report', parentId: '295028', version: 1, body: '<p>Status</p>' },
    ],
  };
}

/** The parts of a response body the tests look at. */
interface JsonBody {
  results: Array<{ id: string; [field: string]: unknown }>;
  _links: { next?: string; base?: string };
  errors: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

let fake: FakeConfluence;

beforeAll(async () => {
  fake = await startFakeConfluence({ spaces: [smallSpace()], pageLimitMax: 3 });
});
afterAll(() => fake.close());
afterEach(() => {
  fake.requests.length = 0;
  fake.spaces.set('MFS', smallSpace());
});

async function get(path: string, authorization: string | null = AUTH) {
  const response = await fetch(`${fake.url}${path}`, {
    headers: authorization === null ? {} : { Authorization: authorization },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: JSON.parse(text) as JsonBody };
}

/** Every page id of a listing, following `_links.next`. */
async function listIds(path: string): Promise<string[]> {
  const ids: string[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    const { json } = await get(next);
    ids.push(...json.results.map((page) => page.id));
    next = json._links.next;
  }
  return ids;
}

describe('fake Confluence: authentication and routing', () => {
  it('listens on loopback and reports its credentials', () => {
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fake.email).toBe(FAKE_CONFLUENCE_EMAIL);
    expect(fake.apiToken).toBe(FAKE_CONFLUENCE_API_TOKEN);
  });

  it('answers 401 without Basic auth or with the wrong token, and records every request', async () => {
    const missing = await get('/wiki/api/v2/spaces?keys=MFS', null);
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      errors: [{ status: 401, code: 'UNAUTHORIZED', title: 'Unauthorized', detail: null }],
    });

    const wrong = `Basic ${Buffer.from(`${FAKE_CONFLUENCE_EMAIL}:nope`).toString('base64')}`;
    expect((await get('/wiki/api/v2/spaces?keys=MFS', wrong)).status).toBe(401);
    expect((await get('/wiki/api/v2/spaces?keys=MFS')).status).toBe(200);

    expect(fake.requests).toEqual([
      { method: 'GET', path: '/wiki/api/v2/spaces?keys=MFS', authorization: undefined },
      { method: 'GET', path: '/wiki/api/v2/spaces?keys=MFS', authorization: wrong },
      { method: 'GET', path: '/wiki/api/v2/spaces?keys=MFS', authorization: AUTH },
    ]);
  });

  it('answers unknown paths 404 and other methods 405, with Confluence-style errors', async () => {
    const unknown = await get('/wiki/api/v2/whiteboards/1');
    expect(unknown.status).toBe(404);
    expect(unknown.json.errors[0]).toMatchObject({ status: 404, code: 'NOT_FOUND', title: 'Not Found' });
    expect((await get('/wiki/api/v2/spaces/999/pages')).status).toBe(404);

    const post = await fetch(`${fake.url}/wiki/api/v2/spaces`, { method: 'POST', headers: { Authorization: AUTH } });
    expect(post.status).toBe(405);
  });
});

describe('fake Confluence: spaces', () => {
  it('finds spaces by key, in the shape of GET /wiki/api/v2/spaces', async () => {
    const { status, json } = await get('/wiki/api/v2/spaces?keys=MFS');
    expect(status).toBe(200);
    expect(json._links).toEqual({ base: `${fake.url}/wiki` });
    expect(json.results).toEqual([
      {
        id: '294916',
        key: 'MFS',
        name: 'My first space',
        type: 'global',
        status: 'current',
        authorId: expect.any(String),
        spaceOwnerId: expect.any(String),
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        homepageId: '295028',
        icon: null,
        description: null,
        currentActiveAlias: 'MFS',
        _links: { webui: '/spaces/MFS' },
      },
    ]);
    expect((await get('/wiki/api/v2/spaces?keys=NOPE')).json.results).toEqual([]);
  });

  it('serves one space by id', async () => {
    expect((await get('/wiki/api/v2/spaces/294916')).json).toMatchObject({ id: '294916', key: 'MFS' });
    expect((await get('/wiki/api/v2/spaces/1')).status).toBe(404);
  });
});

describe('fake Confluence: page listings', () => {
  const listing = '/wiki/api/v2/spaces/294916/pages?body-format=storage&limit=2';

  it('lists pages in id order, in the shape Confluence uses', async () => {
    const { json, headers } = await get(listing);
    expect(json.results.map((page) => page.id)).toEqual(['295028', '295083']);
    expect(json.results[1]).toEqual({
      id: '295083',
      status: 'current',
      title: 'Template - Project plan',
      spaceId: '294916',
      parentId: '295028',
      parentType: 'page',
      position: null,
      authorId: expect.any(String),
      ownerId: expect.any(String),
      lastOwnerId: null,
      createdAt: expect.any(String),
      version: {
        number: 3,
        message: '',
        minorEdit: false,
        authorId: expect.any(String),
        createdAt: expect.any(String),
        ncsStepVersion: null,
      },
      body: { storage: { representation: 'storage', value: '<p>Plan</p>' } },
      _links: {
        editui: '/pages/resumedraft.action?draftId=295083',
        webui: '/spaces/MFS/pages/295083/Template+-+Project+plan',
        edituiv2: '/spaces/MFS/pages/edit-v2/295083',
        tinyui: expect.stringMatching(/^\/x\/[\w-]+$/),
      },
    });
    expect(json.results[0]).toMatchObject({ parentId: null, parentType: null });

    const next = json._links.next!;
    expect(next).toMatch(/^\/wiki\/api\/v2\/spaces\/294916\/pages\?body-format=storage&limit=2&cursor=[\w-]+$/);
    expect(json._links.base).toBe(`${fake.url}/wiki`);
    expect(headers.get('link')).toBe(`<${next}>; rel="next", <${fake.url}/wiki>; rel="base"`);
  });

  it('follows cursors to the end, where there is no next link', async () => {
    expect(await listIds(listing)).toEqual(['295028', '295083', '295095', '295107', '13697025']);
    const second = await get((await get(listing)).json._links.next!);
    const last = await get(second.json._links.next!);
    expect(last.json.results.map((page) => page.id)).toEqual(['13697025']);
    expect(last.json._links).toEqual({ base: `${fake.url}/wiki` });
    expect(last.headers.get('link')).toBeNull();
  });

  it('defaults the limit to 25, clamps it to pageLimitMax and rejects nonsense', async () => {
    expect((await get('/wiki/api/v2/spaces/294916/pages')).json.results).toHaveLength(3);
    expect((await get('/wiki/api/v2/spaces/294916/pages?limit=100')).json.results).toHaveLength(3);
    expect((await get('/wiki/api/v2/spaces/294916/pages?limit=0')).status).toBe(400);
    expect((await get('/wiki/api/v2/spaces/294916/pages?limit=two')).status).toBe(400);
    expect((await get('/wiki/api/v2/spaces/294916/pages?cursor=not-a-cursor')).status).toBe(400);
  });

  it('includes the storage body only when asked for, and filters by status', async () => {
    expect((await get('/wiki/api/v2/spaces/294916/pages?limit=1')).json.results[0]?.body).toEqual({});
    expect((await get('/wiki/api/v2/spaces/294916/pages?body-format=view')).status).toBe(400);
    expect((await get('/wiki/api/v2/spaces/294916/pages?status=current')).json.results).toHaveLength(3);
    expect((await get('/wiki/api/v2/spaces/294916/pages?status=archived,trashed')).json.results).toEqual([]);
  });

  it('shows changes to the spaces map in the next response', async () => {
    const space = fake.spaces.get('MFS')!;
    space.pages = space.pages.filter((page) => page.id !== '295095');
    space.pages[0]!.title = 'Renamed home';
    space.pages[0]!.version = 2;
    space.pages.push({ id: '295200', title: 'New page', parentId: null, version: 1, body: '<p>New</p>' });

    expect(await listIds(listing)).toEqual(['295028', '295083', '295107', '295200', '13697025']);
    const { json } = await get(listing);
    expect(json.results[0]).toMatchObject({ title: 'Renamed home', version: { number: 2 } });
  });

  it('keeps its place when pages are deleted in the middle of a listing', async () => {
    const first = await get(listing);
    const space = fake.spaces.get('MFS')!;
    space.pages = space.pages.filter((page) => page.id !== '295083' && page.id !== '295095');
    expect(await listIds(first.json._links.next!)).toEqual(['295107', '13697025']);
  });
});

describe('fake Confluence: faults', () => {
  const path = '/wiki/api/v2/spaces?keys=MFS';

  it('answers the next matching requests with a queued status, then normally', async () => {
    fake.fault((p) => p.startsWith('/wiki/api/v2/spaces?'), { status: 429, retryAfter: '3' }, 2);
    const first = await get(path);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('3');
    expect(first.json.errors[0]).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS' });
    expect((await get('/wiki/api/v2/spaces/294916')).status).toBe(200);
    expect((await get(path)).status).toBe(429);
    expect((await get(path)).status).toBe(200);
  });

  it('applies faults before authentication, in the order they were queued', async () => {
    fake.fault(() => true, { status: 500 });
    fake.fault(() => true, { status: 503 });
    expect((await get(path, null)).status).toBe(500);
    expect((await get(path, null)).status).toBe(503);
    expect((await get(path, null)).status).toBe(401);
  });

  it('sends a verbatim body', async () => {
    fake.fault(() => true, { body: '{"results": [', contentType: 'text/html' });
    const response = await fetch(`${fake.url}${path}`, { headers: { Authorization: AUTH } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(await response.text()).toBe('{"results": [');
  });

  it('delays an answer', async () => {
    fake.fault(() => true, { delayMs: 150 });
    const started = Date.now();
    expect((await get(path)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('drops the connection', async () => {
    fake.fault(() => true, { reset: true });
    await expect(fetch(`${fake.url}${path}`, { headers: { Authorization: AUTH } })).rejects.toThrow();
    expect((await get(path)).status).toBe(200);
  });

  it('closes promptly with a delayed request pending', async () => {
    const other = await startFakeConfluence();
    other.fault(() => true, { delayMs: 60_000 });
    const pending = fetch(`${other.url}/wiki/api/v2/spaces`).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await other.close();
    // Far below the pending answer's minute, and wide enough for a busy machine.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('generateStoragePage', () => {
  /** Tags open and close in order (CDATA sections aside) and every & starts an entity. */
  function checkWellFormed(xhtml: string): void {
    const text = xhtml.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '');
    const open: string[] = [];
    for (const [tag, closing, name, selfClosing] of text.matchAll(/<(\/?)([A-Za-z][\w:-]*)[^>]*?(\/?)>/g)) {
      if (selfClosing === '/') continue;
      if (closing === '/') expect(open.pop(), tag).toBe(name);
      else open.push(name!);
    }
    expect(open).toEqual([]);
    expect(text).not.toMatch(/&(?!amp;|lt;|gt;|quot;|apos;|#\d+;)/);
  }

  it('is deterministic per seed', () => {
    expect(generateStoragePage(42, 20_000)).toBe(generateStoragePage(42, 20_000));
    expect(generateStoragePage(43, 20_000)).not.toBe(generateStoragePage(42, 20_000));
  });

  it.each([2_000, 10_000, 50_000, 200_000])('comes close to %i bytes', (target) => {
    const bytes = Buffer.byteLength(generateStoragePage(target, target));
    expect(bytes).toBeGreaterThanOrEqual(target);
    expect(bytes).toBeLessThan(target + 4_000);
  });

  it('reads like a real page: headings, prose, lists, a table, code, panels and links', () => {
    const page = generateStoragePage(7, 50_000);
    for (const needle of [
      /^<h1>/,
      /<h2>/,
      /<h3>/,
      /<p>[A-Z][a-z]+ [^<]{20,}/,
      /<ul><li><p>/,
      /<ol><li><p>/,
      /<table data-layout="default"><colgroup>.*?<tbody><tr><th>/,
      /<ac:structured-macro ac:name="code"[^>]*><ac:parameter ac:name="language">\w+<\/ac:parameter>/,
      /<ac:plain-text-body><!\[CDATA\[[^\]]+\]\]><\/ac:plain-text-body><\/ac:structured-macro>/,
      /<ac:structured-macro ac:name="info"[^>]*><ac:rich-text-body><p>/,
      /<a href="https:\/\/docs\.example\.com\/[\w-]+">/,
      /<ac:link><ri:page ri:content-title="[^"]+" \/><ac:link-body>/,
      /<strong>|<em>|<code>/,
    ]) {
      expect(page).toMatch(needle);
    }
    checkWellFormed(page);
  });

  it('writes well-formed XHTML for any seed', () => {
    for (let seed = 0; seed < 40; seed++) checkWellFormed(generateStoragePage(seed, 8_000));
  });
});

describe('generateSpace', () => {
  it('is deterministic for a key and seed', () => {
    const a = generateSpace({ key: 'ENG', pages: 30, pageBytes: 1_000 });
    expect(generateSpace({ key: 'ENG', pages: 30, pageBytes: 1_000 })).toEqual(a);
    expect(generateSpace({ key: 'ENG', pages: 30, pageBytes: 1_000, seed: 2 }).pages[5]?.body).not.toBe(
      a.pages[5]?.body,
    );
  });

  it('builds a tree of uniquely titled pages with numeric ids', () => {
    const space = generateSpace({ key: 'ENG', pages: 500, pageBytes: 500 });
    expect(space.key).toBe('ENG');
    expect(space.id).toMatch(/^\d+$/);
    expect(space.name).toMatch(/ENG$/);
    expect(space.pages).toHaveLength(500);
    expect(new Set(space.pages.map((page) => page.title)).size).toBe(500);
    expect(new Set(space.pages.map((page) => page.id)).size).toBe(500);

    const position = new Map(space.pages.map((page, i) => [page.id, i]));
    expect(space.pages[0]?.parentId).toBeNull();
    space.pages.forEach((page, i) => {
      expect(page.id).toMatch(/^\d+$/);
      expect(Number.isSafeInteger(Number(page.id))).toBe(true);
      expect(page.version).toBeGreaterThanOrEqual(1);
      if (i > 0) expect(position.get(page.parentId!)).toBeLessThan(i);
    });
  });

  it('gives different keys different ids', () => {
    const a = generateSpace({ key: 'ENG', pages: 50, pageBytes: 200 });
    const b = generateSpace({ key: 'OPS', pages: 50, pageBytes: 200 });
    expect(a.id).not.toBe(b.id);
    const ids = new Set(a.pages.map((page) => page.id));
    expect(b.pages.some((page) => ids.has(page.id))).toBe(false);
  });
});
