/**
 * The API under fuzzing: requests generated from the OpenAPI document the server publishes, for
 * every operation and every parameter, sent to the real server in a process of its own.
 *
 * - Valid input (within the documented bounds) never gets a 5xx or an undocumented status.
 * - Input that breaks one documented rule gets a 400 in the one error shape.
 * - Nothing makes the server hang, crash or grow without bound.
 *
 * The run is bounded (KB_FUZZ_RUNS cases per operation and kind, default 12) and prints its seed;
 * KB_FUZZ_SEED=<seed> replays it.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEmbeddedStore } from '@kb/db/testing';
import { invalidObject, invalidParameter, validValue, type Hints, type JsonSchema } from './fuzz/schema-arbitraries.ts';
import { freePort, repoRoot, run, stopAll, waitFor } from './processes.ts';

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema: JsonSchema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
  security?: unknown[];
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> } & Record<string, Record<string, unknown>>;
}

const DOCUMENT = JSON.parse(readFileSync(join(repoRoot, 'packages/api/openapi.json'), 'utf8')) as OpenApiDocument;
const RUNS = Number(process.env.KB_FUZZ_RUNS ?? 12);
const SEED = Number(process.env.KB_FUZZ_SEED ?? Date.now() % 2_147_483_647);
/** A request that takes longer than this has hung the server (a slow, busy machine answers in seconds). */
const HANG_MS = 60_000;
const ERROR_CODES = new Set((DOCUMENT.components.schemas.Error!.properties!.code!.enum ?? []) as string[]);
const ADMIN_PASSWORD = 'fuzz-admin-password-123';
const SITE = 'https://docs.fuzz.example';

/**
 * Operations whose documented rules span fields (a publishable key needs origins; an admin key
 * takes no namespaces; an OpenAPI spec must be one; a wiki import needs a space or page; reasons
 * go with a thumbs-down): a
 * schema-valid request may break one of them, and then gets a 400 that says which.
 */
// A source's settings need a start URL or a sitemap URL (either one), and URLs that parse.
const CROSS_FIELD_RULES = new Set(['keys-create', 'keys-update', 'ingest-openapi', 'ingest-wiki', 'chat-feedback', 'ingest-file', 'sources-create', 'sources-update']);
/**
 * File uploads: operations whose body is a file, not JSON, sent a small Markdown file with the
 * generated query (which holds its fields: `namespace` is needed there, a rule across the body's
 * kind and the query). Malformed and mutated files: ingest-files-fuzz.test.ts.
 */
const FILE_BODIES: Record<string, { body: string; contentType: string }> = {
  'ingest-file': { body: '# Fuzzed file\n\nA paragraph about fuzzing.\n', contentType: 'text/markdown' },
};
/** Documents served as they are, not operations of the API. */
const NOT_API = new Set(['openapi', 'docs']);

const operations = Object.entries(DOCUMENT.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, operation]) => !NOT_API.has(operation.operationId))
    .map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

let server: ChildProcess;
let base = '';
let dataDir = '';
let pages: Server;
let adminKey = '';
let publishableKey = '';
const known: Record<string, string[]> = { conversationId: [], messageId: [], keyId: [], documentId: [] };
const knownIds: Record<string, string[]> = {
  '/keys/{id}': [],
  '/documents/{id}': [],
  '/conversations/{id}': [],
  '/sources/{id}': [],
  '/sources/{id}/sync': [],
  '/sources/{id}/failures': [],
};
/** A list's cursor is opaque: the values worth sending are the ones that list gave out. */
const knownCursors: Record<string, string[]> = { '/documents': [], '/conversations': [], '/feedback': [], '/sources': [] };
/** Fields whose rule the document states in words: a BCP 47 tag, a publishable key. */
const LANGUAGE_TAGS = ['en', 'fr', 'pt-BR', 'de-CH', 'zh-Hant-TW', 'es-419', 'sr-Latn-RS'];
const NOT_LANGUAGE_TAGS = ['__d', 'not a tag', 'en_US!', '1234567890'];
let rssBefore = 0;
let errors = '';
const serverErrors: string[] = [];
/** What refused schema-valid input (the operations with rules across fields), for the report. */
const refusedValid: string[] = [];
const tally = new Map<string, Map<number, number>>();

const hints: Hints = {
  resolve(ref) {
    const [, , section, name] = ref.split('/');
    return (DOCUMENT.components as Record<string, Record<string, JsonSchema>>)[section!]![name!]!;
  },
  url: fc.oneof(
    fc.webPath().map((path) => `http://127.0.0.1:${(pages.address() as AddressInfo).port}${path.startsWith('/') ? path : `/${path}`}`),
    fc.constantFrom('http://127.0.0.1:1/refused', 'https://unknown-host.invalid/page'),
  ),
  named(name, generated) {
    if (name === 'language' || name === 'lang') return fc.constantFrom(...LANGUAGE_TAGS);
    if (name === 'url' || name === 'baseUrl') return hints.url;
    if (name === 'key') return fc.oneof(fc.constant(publishableKey), fc.stringMatching(/^kb_pub_[0-9A-Za-z]{40}$/));
    if (name === 'password') return fc.oneof(generated, fc.constant(ADMIN_PASSWORD));
    const ids = known[name] ?? [];
    return ids.length > 0 ? fc.oneof(generated, fc.constantFrom(...ids)) : generated;
  },
};

async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

interface Sent {
  status: number;
  contentType: string;
  text: string;
}

async function send(method: string, url: string, init: { key?: string; origin?: string; body?: string; contentType?: string } = {}): Promise<Sent> {
  const headers: Record<string, string> = {};
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.origin) headers.origin = init.origin;
  if (init.body !== undefined) headers['content-type'] = init.contentType ?? 'application/json';
  let res: Response;
  try {
    res = await fetch(`${base}${url}`, { method, headers, body: init.body, signal: AbortSignal.timeout(HANG_MS) });
  } catch (error) {
    throw new Error(`${method} ${url} got no answer (${(error as Error).message}); the server ${server.exitCode === null && server.signalCode === null ? 'is still running' : 'has exited'}`);
  }
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text };
}

function countStatus(operationId: string, status: number): void {
  const byStatus = tally.get(operationId) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  tally.set(operationId, byStatus);
}

/** The one error shape, with a code that fits the status. */
function expectErrorShape(sent: Sent, what: string): void {
  expect(sent.contentType, what).toMatch(/application\/json/);
  const body = JSON.parse(sent.text) as { code?: unknown; message?: unknown };
  expect(typeof body.message, what).toBe('string');
  expect(ERROR_CODES.has(body.code as string), `${what}: code ${String(body.code)}`).toBe(true);
  // A bounded body: a bad value is never echoed whole.
  expect(sent.text.length, what).toBeLessThan(20_000);
}

/** The credentials an operation is called with: its security, and the key kind it is meant for. */
function credentials(path: string, operation: Operation): { key?: string; origin?: string } {
  if (path === '/assistant/visitor') return { key: publishableKey, origin: SITE };
  return (operation.security ?? []).length > 0 ? { key: adminKey } : {};
}

function queryString(values: [string, string][]): string {
  return values.length === 0 ? '' : `?${new URLSearchParams(values).toString()}`;
}

function pathWith(template: string, id: string): string {
  return template.replace('{id}', encodeURIComponent(id));
}

beforeAll(async () => {
  // Pages the URL ingestion may fetch: a small document at any path.
  pages = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
    res.end(`# Page ${req.url}\n\nThe cache keeps a page for 300 seconds by default.\n`);
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));

  dataDir = await mkdtemp(join(tmpdir(), 'kb-fuzz-'));
  await seedEmbeddedStore(dataDir);
  const port = await freePort();
  server = run(['apps/server/src/main.ts'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    KB_DATA_DIR: dataDir,
    KB_ADMIN_PASSWORD: ADMIN_PASSWORD,
    KB_ALLOW_PRIVATE_URLS: 'true',
    KB_FETCH_TIMEOUT_MS: '5000',
    // A wiki the imports reach: the page server, which is no Confluence, so each job fails cleanly.
    WIKI_BASE_URL: `http://127.0.0.1:${(pages.address() as AddressInfo).port}/wiki`,
    WIKI_EMAIL: 'fuzz@example.com',
    WIKI_API_TOKEN: 'fuzz-token',
    // The public FAQ's own limits would refuse most of the run with documented 429s.
    KB_FAQ_RATE_LIMIT_PER_MINUTE: '1000000',
    KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  server.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  server.stdout!.on('data', (chunk: Buffer) => {
    // The server's own account of a failure: its error log lines, kept for the report.
    for (const line of chunk.toString().split('\n')) if (line.includes('"level":50')) serverErrors.push(line.slice(0, 2_000));
  });
  base = `http://127.0.0.1:${port}/api/v1`;
  await waitFor(`http://127.0.0.1:${port}/readyz`, 120_000);
  // A new store shows its first admin key once, on the terminal, as it starts.
  for (let waited = 0; waited < 30_000 && !/\bkb_[0-9A-Za-z]{40}\b/.test(errors); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  adminKey = /\b(kb_[0-9A-Za-z]{40})\b/.exec(errors)?.[1] ?? '';
  expect(adminKey, 'the new store shows its first admin key').not.toBe('');

  const call = async (method: string, url: string, body?: unknown, init: { key?: string; origin?: string } = { key: adminKey }) => {
    const sent = await send(method, url, { ...init, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect(sent.status, `${method} ${url}: ${sent.text}`).toBeLessThan(300);
    return JSON.parse(sent.text) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  // Rows for the ids in paths and bodies to find: documents, keys, a conversation and its answer.
  for (const [title, content] of [
    ['Caching', '# Caching\n\nThe cache keeps a page for 300 seconds by default.\n\n## Purge\n\nRun `kb purge` to empty it.\n'],
    ['Install', '# Install\n\nInstall the tool with `brew install tool` on macOS.\n'],
  ] as const) {
    await call('POST', '/ingest/md', { title, namespace: 'user_docs', content, metadata: { url: `https://docs.example.com/${title.toLowerCase()}` } });
  }
  const documents = await call('GET', '/documents');
  for (const document of documents.documents ?? documents.items ?? []) {
    knownIds['/documents/{id}']!.push(document.id);
    known.documentId!.push(document.id);
  }
  for (const label of ['fuzz target one', 'fuzz target two']) {
    const created = await call('POST', '/keys', { label });
    knownIds['/keys/{id}']!.push(created.id);
    known.keyId!.push(created.id);
  }
  const publishable = await call('POST', '/keys', { label: 'fuzz site', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [SITE] });
  publishableKey = publishable.key;
  for (const question of ['How long does the cache keep a page?', 'How do I install the tool?']) {
    const answer = await call('POST', '/chat', { message: question, stream: false });
    knownIds['/conversations/{id}']!.push(answer.conversationId);
    known.conversationId!.push(answer.conversationId);
    known.messageId!.push(answer.messageId);
    await call('POST', '/chat/feedback', { messageId: answer.messageId, rating: 'up' });
  }
  // Sources that are never synced (nothing is fetched): ids for the paths, two for a cursor.
  for (const name of ['fuzz site one', 'fuzz site two']) {
    const source = await call('POST', '/sources', { kind: 'website', name, namespace: 'user_docs', settings: { startUrl: 'https://docs.example.com/' }, sync: false });
    for (const path of ['/sources/{id}', '/sources/{id}/sync', '/sources/{id}/failures']) knownIds[path]!.push(source.id);
  }
  for (const list of Object.keys(knownCursors)) {
    const page = await call('GET', `${list}?limit=1`);
    expect(typeof page.nextCursor, `${list} gives a cursor past its first row`).toBe('string');
    knownCursors[list]!.push(page.nextCursor);
  }
  // A source's failures page by URL; a source never synced has none to page past, so the cursor
  // sent is the one the list gives after the URL "" (its form: base64url of ["url", <last url>]).
  knownCursors['/sources/{id}/failures'] = [Buffer.from(JSON.stringify(['url', ''])).toString('base64url')];
  rssBefore = await rss(server.pid!);
  console.log(`fuzz seed ${SEED}, ${RUNS} cases per operation and kind (replay: KB_FUZZ_SEED=${SEED}; more: KB_FUZZ_RUNS)`);
}, 180_000);

afterAll(async () => {
  const lines = [...tally.entries()].map(([id, byStatus]) => `  ${id.padEnd(20)} ${[...byStatus.entries()].sort(([a], [b]) => a - b).map(([status, count]) => `${status}×${count}`).join(' ')}`);
  if (lines.length > 0) console.log(`statuses by operation:\n${lines.join('\n')}`);
  if (refusedValid.length > 0) console.log(`schema-valid requests refused by a rule across fields:\n  ${[...new Set(refusedValid)].slice(0, 30).join('\n  ')}`);
  if (serverErrors.length > 0) console.log(`the server logged ${serverErrors.length} errors; the first:\n${serverErrors.slice(0, 5).join('\n')}`);
  if (server) await stopAll([server]);
  await new Promise((resolve) => pages?.close(resolve));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe.each(operations)('$method $path', ({ path, method, operation }) => {
  const index = operations.findIndex((entry) => entry.operation === operation);
  const parameters = operation.parameters ?? [];
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const pathParameter = parameters.find((parameter) => parameter.in === 'path');
  const jsonBody = operation.requestBody?.content['application/json']?.schema;
  const documented = new Set(Object.keys(operation.responses).map(Number));

  it('answers valid input with a documented status, never a 5xx', async () => {
    const queryValues = fc
      .record(
        Object.fromEntries(
          query.map((parameter) => [
            parameter.name,
            parameter.name === 'cursor' ? fc.constantFrom(...knownCursors[path]!) : validValue(parameter.schema, hints, parameter.name).map(String),
          ]),
        ),
        { requiredKeys: query.filter((parameter) => parameter.required).map((parameter) => parameter.name) },
      )
      // A cursor takes the place of an offset (the document says "instead of offset").
      .map((values) => {
        if (values.cursor === undefined) return values;
        const { offset: _offset, ...rest } = values;
        return rest;
      }) as fc.Arbitrary<Record<string, string>>;
    const id = pathParameter
      ? fc.oneof(validValue(pathParameter.schema, hints).map(String), fc.constantFrom(...(knownIds[path]!.length > 0 ? knownIds[path]! : ['none'])))
      : fc.constant('');
    const body = jsonBody ? validValue(jsonBody, hints) : fc.constant(undefined);
    await fc.assert(
      fc.asyncProperty(queryValues, id, body, async (values, idValue, bodyValue) => {
        const url = `${pathWith(path, idValue)}${queryString(Object.entries(values))}`;
        const sent = await send(method, url, {
          ...credentials(path, operation),
          ...(bodyValue === undefined ? (FILE_BODIES[operation.operationId] ?? {}) : { body: JSON.stringify(bodyValue) }),
        });
        countStatus(operation.operationId, sent.status);
        const what = `${method} ${url} ${bodyValue === undefined ? '' : JSON.stringify(bodyValue).slice(0, 2_000)} -> ${sent.status} ${sent.text.slice(0, 300)}`;
        expect(sent.status, what).toBeLessThan(500);
        expect(documented.has(sent.status), `${what}: status not in the document`).toBe(true);
        if (sent.status === 400) refusedValid.push(`${operation.operationId}: ${sent.text.slice(0, 200)}`);
        if (sent.status >= 400) {
          expectErrorShape(sent, what);
          if (!CROSS_FIELD_RULES.has(operation.operationId)) expect(sent.status, `${what}: valid input refused`).not.toBe(400);
        } else if (sent.contentType.includes('text/event-stream')) {
          expect(sent.text.trimEnd().endsWith('data: [DONE]'), what).toBe(true);
        } else if (sent.contentType.includes('application/json')) {
          expect(() => JSON.parse(sent.text), what).not.toThrow();
        }
      }),
      { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
    );
  }, 600_000);

  if (jsonBody) {
    it('answers a body that breaks one rule with a 400 in the error shape', async () => {
      await fc.assert(
        fc.asyncProperty(invalidObject(jsonBody, hints), async ({ value, rule }) => {
          const url = pathWith(path, knownIds[path]?.[0] ?? '00000000-0000-4000-8000-000000000000');
          const sent = await send(method, url, { ...credentials(path, operation), body: JSON.stringify(value) });
          countStatus(operation.operationId, sent.status);
          const what = `${method} ${url} (${rule}) ${JSON.stringify(value).slice(0, 300)} -> ${sent.status} ${sent.text.slice(0, 300)}`;
          expect(sent.status, what).toBe(400);
          expectErrorShape(sent, what);
        }),
        { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
      );
      // Text that is not JSON at all.
      const broken = await send(method, pathWith(path, knownIds[path]?.[0] ?? 'x'), { ...credentials(path, operation), body: '{"query": "unterminated' });
      expect(broken.status, broken.text).toBe(400);
      expectErrorShape(broken, `${method} ${path} with broken JSON`);
    }, 600_000);
  }

  if (query.length > 0 || pathParameter) {
    it('answers a bad or unknown parameter with a 400 (a bad id: 400 or 404)', async () => {
      const choices: fc.Arbitrary<{ url: string; rule: string; pathOnly: boolean }>[] = [
        fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'unknownParameter').map((name) => ({
          url: `${pathWith(path, knownIds[path]?.[0] ?? 'x')}?${name}=x`,
          rule: `unknown parameter ${name}`,
          pathOnly: false,
        })),
      ];
      for (const parameter of query) {
        if (parameter.name === 'language' || parameter.name === 'lang') {
          choices.push(fc.constantFrom(...NOT_LANGUAGE_TAGS).map((value) => ({ url: `${path}${queryString([[parameter.name, value]])}`, rule: `${parameter.name}=${value}`, pathOnly: false })));
        }
        if (parameter.name === 'key') choices.push(fc.constant({ url: `${path}?key=kb_secret_pasted_by_mistake`, rule: 'a key that is not publishable', pathOnly: false }));
        const bad = invalidParameter(parameter.schema, hints);
        if (bad) choices.push(bad.map((value) => ({ url: `${pathWith(path, knownIds[path]?.[0] ?? 'x')}${queryString([[parameter.name, value]])}`, rule: `${parameter.name}=${value.slice(0, 40)}`, pathOnly: false })));
      }
      if (pathParameter) {
        const bad = invalidParameter(pathParameter.schema, hints);
        if (bad) choices.push(bad.filter((value) => value !== '').map((value) => ({ url: pathWith(path, value), rule: `id ${value.slice(0, 40)}`, pathOnly: true })));
      }
      await fc.assert(
        fc.asyncProperty(fc.oneof(...choices), async ({ url, rule, pathOnly }) => {
          const sent = await send(method, url, { ...credentials(path, operation), ...(jsonBody ? { body: '{}' } : (FILE_BODIES[operation.operationId] ?? {})) });
          countStatus(operation.operationId, sent.status);
          const what = `${method} ${url} (${rule}) -> ${sent.status} ${sent.text.slice(0, 300)}`;
          if (pathOnly) expect([400, 404], what).toContain(sent.status);
          else expect(sent.status, what).toBe(400);
          expectErrorShape(sent, what);
        }),
        { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
      );
    }, 600_000);
  }
});

describe('after the run', () => {
  it('the server still answers at once, and its memory did not run away', async () => {
    expect(server.exitCode, 'the server exited during the run').toBeNull();
    const started = Date.now();
    const health = await fetch(`${base.replace('/api/v1', '')}/healthz`, { signal: AbortSignal.timeout(10_000) });
    expect(health.status).toBe(200);
    const after = await rss(server.pid!);
    console.log(`server RSS ${Math.round(rssBefore / 2 ** 20)} MB before the run, ${Math.round(after / 2 ** 20)} MB after; /healthz in ${Date.now() - started} ms`);
    // The store's pages and caches grow with what was written; a leak per request would be gigabytes.
    expect(after - rssBefore).toBeLessThan(512 * 2 ** 20);
  });
});
