/**
 * Malformed HTTP, sent as raw bytes to the server in a process of its own: odd methods, bad Host
 * headers, absolute-form request lines, huge paths, duplicate and odd headers, garbage lines, on
 * every route family. Each is answered (a JSON error when it is refused, never a 5xx) and the same
 * process answers /healthz right after: no request may end the server.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmptyPostgresDatabase, isPostgresAvailable, seedEmbeddedStore, TEST_REDIS_URL } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRedisKeys, freePort, run, stopAll, testQueuePrefix, waitFor } from './processes.ts';

/** One of each route family the server answers. */
const ROUTES = [
  '/api/v1/keys',
  '/api/v1/search?q=cache',
  '/api/v1/openapi.json',
  '/api/v1/docs',
  '/api/v1/chat',
  '/trpc/keys.list',
  '/trpc/x',
  '/trpc/search.query?input=%7B%7D',
  '/mcp',
  '/',
  '/admin/',
  '/widget/kb-assistant.js',
  '/healthz',
  '/readyz',
  '/no/such/route',
];

interface Case {
  name: string;
  /** The raw bytes of the request for `path`. */
  request(path: string): string | Buffer;
}

const line = (method: string, target: string, headers: string[] = ['Host: 127.0.0.1']) =>
  `${method} ${target} HTTP/1.1\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`;

const CASES: Case[] = [
  ...['TRACE', 'TRACK', 'CONNECT', 'PROPFIND', 'MKCOL', 'SEARCH', 'PURGE', 'LINK', 'get', 'G3T', 'FOO', 'X'.repeat(300)].map((method) => ({
    name: `method ${method.slice(0, 20)}`,
    request: (path: string) => line(method, path),
  })),
  ...(
    [
      ['[bad', 'Host: [bad'],
      ['with a space', 'Host: a b'],
      ['empty', 'Host:'],
      ['huge', `Host: ${'h'.repeat(60_000)}`],
      ['userinfo', 'Host: user:pass@127.0.0.1'],
      ['bad port', 'Host: 127.0.0.1:99999999'],
      ['two of them', 'Host: 127.0.0.1\r\nHost: evil.example'],
      ['control character', 'Host: a\x01b'],
    ] as const
  ).flatMap(([name, host]) =>
    ['GET', 'POST', 'OPTIONS', 'TRACE'].map((method) => ({
      name: `${method} with Host ${name}`,
      request: (path: string) => line(method, path, [host, ...(method === 'POST' ? ['Content-Type: application/json', 'Content-Length: 2'] : [])]).replace(/\r\n\r\n$/, method === 'POST' ? '\r\n\r\n{}' : '\r\n\r\n'),
    })),
  ),
  { name: 'no Host', request: (path) => `GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n` },
  { name: 'HTTP/1.0 without Host', request: (path) => `GET ${path} HTTP/1.0\r\n\r\n` },
  { name: 'absolute-form', request: (path) => line('GET', `http://evil.example${path}`) },
  { name: 'absolute-form with a bad host', request: (path) => line('GET', `http://[bad${path}`) },
  { name: 'absolute-form TRACE', request: (path) => line('TRACE', `http://127.0.0.1${path}`) },
  { name: 'asterisk-form', request: () => line('OPTIONS', '*') },
  { name: 'authority-form GET', request: () => line('GET', '127.0.0.1:80') },
  { name: 'scheme-relative target', request: (path) => line('GET', `//evil.example${path}`) },
  { name: 'a long path', request: (path) => line('GET', `${path.split('?')[0]}/${'a'.repeat(20_000)}`) },
  { name: 'a path over the header limit', request: (path) => line('GET', `${path.split('?')[0]}/${'a'.repeat(70_000)}`) },
  { name: 'bad percent-encoding', request: (path) => line('GET', `${path.split('?')[0]}/%E0%A4%A?%zz=%`) },
  { name: 'two Content-Lengths', request: (path) => line('POST', path, ['Host: 127.0.0.1', 'Content-Length: 2', 'Content-Length: 3']) + '{}' },
  { name: 'Content-Length and chunked', request: (path) => line('POST', path, ['Host: 127.0.0.1', 'Content-Length: 2', 'Transfer-Encoding: chunked']) + '0\r\n\r\n' },
  { name: 'bad chunk size', request: (path) => line('POST', path, ['Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked']) + 'zz\r\n{}\r\n0\r\n\r\n' },
  { name: 'negative Content-Length', request: (path) => line('POST', path, ['Host: 127.0.0.1', 'Content-Length: -1']) },
  {
    name: 'odd headers',
    request: (path) =>
      line('GET', path, [
        'Host: 127.0.0.1',
        'Origin: null',
        'Origin: http://evil.example',
        'Authorization: Bearer a',
        'Authorization: Basic b',
        'X-Request-Id: ../../etc',
        'X-Request-Id: two',
        'Cookie: ;;;=;kb_session=%zz',
        'Accept: */*, text/event-stream;q=abc',
        'Content-Type: ;;',
        'KB-Read-From: primary',
        'X-Forwarded-For: not an address',
        'X-Forwarded-Host: [bad',
        'X-Forwarded-Proto: gopher',
        'Sec-Fetch-Site: same-origin',
        'Expect: 100-continue',
        'Mcp-Session-Id: ../x',
        'Mcp-Protocol-Version: 1999-01-01',
      ]),
  },
  { name: 'Expect other than 100-continue', request: (path) => line('POST', path, ['Host: 127.0.0.1', 'Expect: 200-ok', 'Content-Length: 2']) + '{}' },
  { name: 'upgrade to websocket', request: (path) => line('GET', path, ['Host: 127.0.0.1', 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']) },
  { name: 'upgrade to h2c', request: (path) => line('GET', path, ['Host: 127.0.0.1', 'Upgrade: h2c', 'HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA']) },
  { name: 'header without a colon', request: (path) => line('GET', path, ['Host: 127.0.0.1', 'no colon here']) },
  { name: 'header name with a space', request: (path) => line('GET', path, ['Host: 127.0.0.1', 'Bad Name: x']) },
  { name: 'bare LF line ends', request: (path) => `GET ${path} HTTP/1.1\nHost: 127.0.0.1\nConnection: close\n\n` },
  { name: 'HTTP/9.9', request: (path) => `GET ${path} HTTP/9.9\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n` },
  { name: 'HTTP/2 preface', request: () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' },
  { name: 'a line of garbage', request: (path) => `\x16\x03\x01garbage ${path} \xff\xfe\r\n\r\n` },
  { name: 'random bytes', request: () => Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7919 + 13) % 256)) },
  { name: 'a request line alone', request: (path) => `GET ${path}\r\n\r\n` },
  { name: 'NUL in the path', request: (path) => line('GET', `${path}\x00x`) },
];

interface Answer {
  status?: number;
  headers: string;
  body: string;
}

/** Sends `bytes` on a connection of its own and reads what comes back until the server closes it. */
function exchange(port: number, bytes: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 30 s'));
    }, 30_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const head = end < 0 ? text : text.slice(0, end);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
      resolve({ ...(status ? { status: Number(status) } : {}), headers: head, body: end < 0 ? '' : text.slice(end + 4) });
    });
    // The connection stays open for writing: Node aborts the requests of a client that half-closes.
    // Each request asks for the connection to close after its answer, or is one that ends it.
    socket.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes);
  });
}

const available = await isPostgresAvailable();
const MODES = [
  { mode: 'embedded', run: true },
  { mode: 'services', run: available },
] as const;

describe.each(MODES)('malformed HTTP, $mode mode', ({ mode, run: runMode }) => {
  let server: ChildProcess;
  let port = 0;
  let dataDir = '';
  let database: { url: string; drop(): Promise<void> } | undefined;
  let prefix = '';
  let logs = '';

  beforeAll(async () => {
    if (!runMode) return;
    port = await freePort();
    const env: Record<string, string> = { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', KB_ADMIN_PASSWORD: 'malformed-admin-password' };
    if (mode === 'embedded') {
      dataDir = await mkdtemp(join(tmpdir(), 'kb-malformed-'));
      env.KB_DATA_DIR = dataDir;
      await seedEmbeddedStore(dataDir);
    } else {
      database = await createEmptyPostgresDatabase();
      prefix = testQueuePrefix();
      Object.assign(env, { DATABASE_URL: database.url, REDIS_URL: TEST_REDIS_URL, KB_QUEUE_PREFIX: prefix });
    }
    server = run(['apps/server/src/main.ts'], env);
    server.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    server.stderr!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    await waitFor(`http://127.0.0.1:${port}/readyz`, 120_000);
  }, 180_000);

  afterAll(async () => {
    if (server) await stopAll([server]);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await database?.drop();
    if (prefix) await dropRedisKeys(prefix);
  });

  it.runIf(runMode).each(ROUTES)('%s: every malformed request is answered, and the same process goes on serving', async (route) => {
    const failures: string[] = [];
    for (const { name, request } of CASES) {
      const what = `${name} on ${route}`;
      let answer: Answer;
      try {
        answer = await exchange(port, request(route));
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
        answer = { headers: '', body: '' };
      }
      if (answer.status === undefined) {
        failures.push(`${what}: no HTTP answer (${JSON.stringify(answer.headers.slice(0, 200))})`);
      } else if (answer.status >= 500) {
        failures.push(`${what}: ${answer.status} ${answer.body.slice(0, 200)}`);
      } else if (answer.status >= 400 && !/^content-type: application\/json/im.test(answer.headers)) {
        failures.push(`${what}: ${answer.status} without a JSON body (${answer.headers.slice(0, 300)})`);
      } else if (answer.status >= 400 && !/^x-request-id: \S+/im.test(answer.headers)) {
        failures.push(`${what}: ${answer.status} without its request id`);
      }
      if (server.exitCode !== null || server.signalCode !== null) {
        failures.push(`${what}: the server exited (${server.exitCode ?? server.signalCode}); its last words:\n${logs.slice(-2_000)}`);
        break;
      }
      const health = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(30_000) }).catch((error: Error) => error);
      if (health instanceof Error || health.status !== 200) {
        failures.push(`${what}: /healthz afterwards: ${health instanceof Error ? health.message : health.status}`);
        break;
      }
    }
    expect(failures).toEqual([]);
    expect(logs, 'nothing escaped to the last-resort handlers').not.toMatch(/uncaught|unhandled rejection/i);
  }, 300_000);
});
