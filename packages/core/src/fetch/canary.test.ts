/**
 * The canary: a loopback server that counts requests. With allowPrivate false, every spelling of
 * "this machine" must be refused before a single byte reaches it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefusedError, guardedFetch, type GuardedFetchOptions } from './index.ts';

let hits = 0;
let connections = 0;
let port = 0;
let ipv6 = false;
const servers: http.Server[] = [];

function canary(): http.Server {
  const server = http.createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('canary');
  });
  server.on('connection', () => connections++);
  return server;
}

function listen(server: http.Server, host: string, onPort: number): Promise<boolean> {
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(onPort, host, () => resolve(true));
  });
}

beforeAll(async () => {
  const v4 = canary();
  await listen(v4, '127.0.0.1', 0);
  servers.push(v4);
  port = (v4.address() as AddressInfo).port;
  // The same port on ::1, where IPv6 loopback exists, so that [::1] would reach a canary too.
  const v6 = canary();
  ipv6 = await listen(v6, '::1', port);
  if (ipv6) servers.push(v6);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const lookup: GuardedFetchOptions['lookup'] = async (hostname) => {
  if (hostname === 'totally-public.example.com') return [{ address: '127.0.0.1', family: 4 }];
  if (hostname === 'rebind.example.com') return [{ address: '8.8.8.8', family: 4 }, { address: '127.0.0.1', family: 4 }];
  if (hostname === 'mapped.example.com') return [{ address: '::ffff:127.0.0.1', family: 6 }];
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw new Error(`unknown host ${hostname}`);
};

function options(allowPrivate: boolean): GuardedFetchOptions {
  return { allowPrivate, maxBytes: 1024 * 1024, timeoutMs: 2_000, maxRedirects: 5, accept: ['text/plain'], lookup };
}

describe('canary: loopback is unreachable without allowPrivate', () => {
  const hosts = [
    '127.0.0.1',
    'localhost',
    '[::1]',
    '2130706433',
    '0x7f.1',
    '0x7f000001',
    '0177.0.0.1',
    '127.1',
    '127.0.0.1.',
    'localhost.',
    'LOCALHOST',
    'sub.localhost',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[::127.0.0.1]',
    '[64:ff9b::127.0.0.1]',
    '0.0.0.0',
    '0',
    'totally-public.example.com',
    'rebind.example.com',
    'mapped.example.com',
  ];

  it.each(hosts)('refuses http://%s:PORT/', async (host) => {
    const error = await guardedFetch(`http://${host}:${port}/`, options(false)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchRefusedError);
    expect((error as FetchRefusedError).reason).toBe('address');
  });

  it('the canary received no request and no connection', () => {
    expect(hits).toBe(0);
    expect(connections).toBe(0);
  });

  it('the canary is reachable with allowPrivate (the test is not vacuous)', async () => {
    const page = await guardedFetch(`http://127.0.0.1:${port}/`, options(true));
    expect(page.body).toBe('canary');
    expect((await guardedFetch(`http://totally-public.example.com:${port}/`, options(true))).body).toBe('canary');
    if (ipv6) expect((await guardedFetch(`http://[::1]:${port}/`, options(true))).body).toBe('canary');
    expect(hits).toBe(ipv6 ? 3 : 2);
  });
});
