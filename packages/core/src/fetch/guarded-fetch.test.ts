import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultAddressPolicy, guardedFetchWithPolicy, type ResolvedAddress } from './guarded-fetch.ts';
import {
  describeFetchFailure,
  FetchFailedError,
  FetchRefusedError,
  guardedFetch,
  InvalidUrlError,
  type GuardedFetchOptions,
} from './index.ts';

interface TestServer {
  port: number;
  origin: string;
  /** Requests received, in order. */
  requests: http.IncomingMessage[];
  /** Open server-side sockets. */
  sockets: Set<Socket>;
}

const servers: Array<http.Server | https.Server> = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function listen(server: http.Server | https.Server): Promise<TestServer> {
  const requests: http.IncomingMessage[] = [];
  const sockets = new Set<Socket>();
  server.prependListener('request', (req: http.IncomingMessage) => requests.push(req));
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { port, origin: `http://127.0.0.1:${port}`, requests, sockets };
}

function startServer(handler: http.RequestListener): Promise<TestServer> {
  return listen(http.createServer(handler));
}

const ACCEPT = ['text/html', 'application/xhtml+xml', 'text/markdown', 'text/plain'];

function options(overrides: Partial<GuardedFetchOptions> = {}): GuardedFetchOptions {
  return { allowPrivate: true, maxBytes: 1024 * 1024, timeoutMs: 5_000, maxRedirects: 5, accept: ACCEPT, ...overrides };
}

/** A resolver that knows only the given names. */
function fakeDns(table: Record<string, string[]>): { lookup: GuardedFetchOptions['lookup']; calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the fetch to fail');
}

async function failedWith(promise: Promise<unknown>, reason: string): Promise<FetchFailedError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(FetchFailedError);
  expect((error as FetchFailedError).reason).toBe(reason);
  return error as FetchFailedError;
}

async function refusedWith(promise: Promise<unknown>, reason: string): Promise<FetchRefusedError> {
  const error = await failure(promise);
  expect(error).toBeInstanceOf(FetchRefusedError);
  expect((error as FetchRefusedError).reason).toBe(reason);
  return error as FetchRefusedError;
}

/** Waits for `check`; the default is wide, for a busy machine (a socket closes in milliseconds when idle). */
async function eventually(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function send(res: http.ServerResponse, type: string | undefined, body: string | Buffer, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(200, { ...(type === undefined ? {} : { 'content-type': type }), ...headers });
  res.end(body);
}

describe('guardedFetch: pages', () => {
  it('fetches HTML, with the request headers it promises', async () => {
    const server = await startServer((_req, res) => send(res, 'text/html; charset=utf-8', '<h1>Hello</h1>'));
    const page = await guardedFetch(`${server.origin}/docs/page?x=1#top`, options({ userAgent: 'test-agent' }));
    expect(page).toEqual({
      url: `${server.origin}/docs/page?x=1#top`,
      status: 200,
      contentType: 'text/html',
      charset: 'utf-8',
      body: '<h1>Hello</h1>',
    });
    const req = server.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/docs/page?x=1');
    expect(req.headers.host).toBe(`127.0.0.1:${server.port}`);
    expect(req.headers['user-agent']).toBe('test-agent');
    expect(req.headers.accept).toBe(ACCEPT.join(', '));
    expect(req.headers['accept-encoding']).toBe('gzip, deflate, br');
  });

  it('fetches Markdown and plain text', async () => {
    const server = await startServer((req, res) =>
      req.url === '/md' ? send(res, 'text/markdown', '# Title\n\nText') : send(res, 'text/plain', 'just text'),
    );
    const md = await guardedFetch(`${server.origin}/md`, options());
    expect(md.contentType).toBe('text/markdown');
    expect(md.body).toBe('# Title\n\nText');
    const txt = await guardedFetch(`${server.origin}/txt`, options());
    expect(txt.contentType).toBe('text/plain');
    expect(txt.body).toBe('just text');
  });

  it('accepts 2xx other than 200', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(203, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    expect((await guardedFetch(server.origin, options())).status).toBe(203);
  });

  it('connects to the address it checked, keeping the host name for the Host header (no second lookup)', async () => {
    const server = await startServer((_req, res) => send(res, 'text/plain', 'pinned'));
    // docs.example.test exists only in the fake resolver: a second, real lookup would fail.
    const dnsTable = fakeDns({ 'docs.example.test': ['127.0.0.1'] });
    const page = await guardedFetch(`http://docs.example.test:${server.port}/a`, options({ lookup: dnsTable.lookup }));
    expect(page.body).toBe('pinned');
    expect(page.url).toBe(`http://docs.example.test:${server.port}/a`);
    expect(dnsTable.calls).toEqual(['docs.example.test']);
    expect(server.requests[0]!.headers.host).toBe(`docs.example.test:${server.port}`);
  });

  it('resolves a trailing-dot name without the dot', async () => {
    const server = await startServer((_req, res) => send(res, 'text/plain', 'dot'));
    const dnsTable = fakeDns({ 'docs.example.test': ['127.0.0.1'] });
    const page = await guardedFetch(`http://docs.example.test.:${server.port}/`, options({ lookup: dnsTable.lookup }));
    expect(page.body).toBe('dot');
    expect(dnsTable.calls).toEqual(['docs.example.test']);
    expect(server.requests[0]!.headers.host).toBe(`docs.example.test:${server.port}`);
  });

  it('uses the other checked addresses when the first does not answer', async () => {
    const server = await startServer((_req, res) => send(res, 'text/plain', 'second'));
    // 127.0.0.2 is loopback too but nothing listens there for this port.
    const dnsTable = fakeDns({ 'multi.example.test': ['127.0.0.2', '127.0.0.1'] });
    const page = await guardedFetch(`http://multi.example.test:${server.port}/`, options({ lookup: dnsTable.lookup }));
    expect(page.body).toBe('second');
  });

  it('sends TLS SNI for the host name and checks the certificate against it', async () => {
    const seen: string[] = [];
    const server = https.createServer(
      {
        key: TEST_KEY,
        cert: TEST_CERT,
        SNICallback: (servername, callback) => {
          seen.push(servername);
          callback(null);
        },
      },
      (_req, res) => send(res, 'text/plain', 'secret'),
    );
    const { port } = await listen(server);
    const dnsTable = fakeDns({ 'secure.example.test': ['127.0.0.1'] });
    // The certificate is self-signed, so the check must fail, after a handshake with the right SNI.
    const error = await failedWith(guardedFetch(`https://secure.example.test:${port}/`, options({ lookup: dnsTable.lookup })), 'tls');
    expect(error.message).not.toContain('secret');
    expect(seen).toEqual(['secure.example.test']);
  });
});

describe('guardedFetch: status and content type', () => {
  it('refuses a 404 and a 500 with their status', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(req.url === '/missing' ? 404 : 500, { 'content-type': 'text/html' });
      res.end('<p>secret body text</p>');
    });
    const notFound = await failedWith(guardedFetch(`${server.origin}/missing`, options()), 'status');
    expect(notFound.status).toBe(404);
    expect(notFound.message).not.toContain('secret');
    expect((await failedWith(guardedFetch(`${server.origin}/broken`, options()), 'status')).status).toBe(500);
  });

  it('refuses application/pdf before reading the body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.write('%PDF-1.7');
      // never ends: a refusal that waited for the body would time out instead
    });
    // Seconds, so that the headers always arrive in time on a busy machine.
    await failedWith(guardedFetch(server.origin, options({ timeoutMs: 10_000 })), 'content-type');
    await eventually(() => server.sockets.size === 0);
  });

  it('compares the media type without parameters and case', async () => {
    const server = await startServer((_req, res) => send(res, 'Text/HTML; Charset="UTF-8"; foo=bar', '<p>x</p>'));
    const page = await guardedFetch(server.origin, options());
    expect(page.contentType).toBe('text/html');
    expect(page.charset).toBe('utf-8');
  });

  it('refuses a type outside accept even when it is text', async () => {
    const server = await startServer((_req, res) => send(res, 'text/html', '<p>x</p>'));
    await failedWith(guardedFetch(server.origin, options({ accept: ['text/markdown'] })), 'content-type');
  });

  it('refuses a malformed Content-Type', async () => {
    const server = await startServer((_req, res) => send(res, 'html', '<p>x</p>'));
    await failedWith(guardedFetch(server.origin, options()), 'content-type');
  });

  it('sniffs a missing Content-Type: HTML if it starts with <, else plain text, refused if binary', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/html') send(res, undefined, '\n  <!doctype html><p>hi</p>');
      else if (req.url === '/text') send(res, undefined, 'plain words');
      else send(res, undefined, Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01, 0x02]));
    });
    const html = await guardedFetch(`${server.origin}/html`, options());
    expect(html.contentType).toBe('text/html');
    const text = await guardedFetch(`${server.origin}/text`, options());
    expect(text.contentType).toBe('text/plain');
    expect(text.body).toBe('plain words');
    await failedWith(guardedFetch(`${server.origin}/binary`, options()), 'content-type');
    await failedWith(guardedFetch(`${server.origin}/html`, options({ accept: ['text/markdown', 'text/plain'] })), 'content-type');
  });
});

describe('guardedFetch: redirects', () => {
  it('follows relative and absolute redirects, each status', async () => {
    const server = await startServer((req, res) => {
      const redirect = (status: number, location: string): void => {
        res.writeHead(status, { location });
        res.end();
      };
      switch (req.url) {
        case '/a/start':
          return redirect(301, 'next'); // relative to /a/
        case '/a/next':
          return redirect(302, '../b?q=1'); // dot segments and a query
        case '/b?q=1':
          return redirect(303, `http://127.0.0.1:${(req.socket.address() as AddressInfo).port}/c`); // absolute
        case '/c':
          return redirect(307, '//127.0.0.1:' + String((req.socket.address() as AddressInfo).port) + '/d'); // scheme-relative
        case '/d':
          return redirect(308, '/final');
        default:
          return send(res, 'text/plain', `at ${req.url}`);
      }
    });
    const page = await guardedFetch(`${server.origin}/a/start#frag`, options());
    expect(page.body).toBe('at /final');
    expect(page.url).toBe(`${server.origin}/final#frag`);
    expect(server.requests.map((r) => r.url)).toEqual(['/a/start', '/a/next', '/b?q=1', '/c', '/d', '/final']);
  });

  it('follows a chain of maxRedirects and refuses one more', async () => {
    const server = await startServer((req, res) => {
      const n = Number(req.url!.slice(1));
      if (n > 0) {
        res.writeHead(302, { location: `/${n - 1}` });
        res.end();
      } else send(res, 'text/plain', 'end');
    });
    expect((await guardedFetch(`${server.origin}/5`, options())).body).toBe('end');
    server.requests.length = 0;
    await failedWith(guardedFetch(`${server.origin}/6`, options()), 'redirects');
    expect(server.requests.map((r) => r.url)).toEqual(['/6', '/5', '/4', '/3', '/2', '/1']); // /0 never asked
    await failedWith(guardedFetch(`${server.origin}/1`, options({ maxRedirects: 0 })), 'redirects');
  });

  it('treats a redirect status without Location as a failed status, and a bad Location as a failure', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(302, req.url === '/bad' ? { location: 'http://[::1' } : {});
      res.end();
    });
    expect((await failedWith(guardedFetch(server.origin, options()), 'status')).status).toBe(302);
    await failedWith(guardedFetch(`${server.origin}/bad`, options()), 'redirect-location');
  });

  it('refuses redirects to other schemes and to URLs with credentials', async () => {
    const server = await startServer((req, res) => {
      const port = (req.socket.address() as AddressInfo).port;
      const targets: Record<string, string> = {
        '/file': 'file:///etc/passwd',
        '/ftp': 'ftp://127.0.0.1/x',
        '/js': 'javascript:alert(1)',
        '/creds': `http://user:pass@127.0.0.1:${port}/inside`,
      };
      const location = targets[req.url!];
      if (location) {
        res.writeHead(302, { location });
        res.end();
      } else send(res, 'text/plain', 'inside');
    });
    await refusedWith(guardedFetch(`${server.origin}/file`, options()), 'scheme');
    await refusedWith(guardedFetch(`${server.origin}/ftp`, options()), 'scheme');
    await refusedWith(guardedFetch(`${server.origin}/js`, options()), 'scheme');
    const creds = await refusedWith(guardedFetch(`${server.origin}/creds`, options()), 'credentials');
    expect(creds.message).not.toContain('pass');
    expect(server.requests.map((r) => r.url)).not.toContain('/inside');
  });

  describe('to a private address when allowPrivate is false', () => {
    // The entry server is on loopback too, so the test's policy lets exactly the first hop's
    // name through; every other hop is judged by the default rule with allowPrivate false.
    const entryOnly = (candidate: Parameters<typeof defaultAddressPolicy>[0]): boolean =>
      candidate.hostname === 'entry.example.test' || defaultAddressPolicy(candidate);

    async function setup(location: (internalPort: number) => string) {
      const internal = await startServer((_req, res) => send(res, 'text/plain', 'internal data'));
      const entry = await startServer((req, res) => {
        if (req.url === '/direct') return send(res, 'text/plain', 'entry page');
        res.writeHead(302, { location: location(internal.port) });
        res.end();
      });
      const dnsTable = fakeDns({
        'entry.example.test': ['127.0.0.1'],
        // A name that looks public but resolves to loopback (DNS pointing inside).
        'public-looking.example.com': ['127.0.0.1'],
        'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
      });
      const opts = options({ allowPrivate: false, lookup: dnsTable.lookup });
      return { internal, entry, dnsTable, opts };
    }

    it('the harness reaches the entry server', async () => {
      const { entry, opts } = await setup(() => '/');
      const page = await guardedFetchWithPolicy(`http://entry.example.test:${entry.port}/direct`, opts, entryOnly);
      expect(page.body).toBe('entry page');
    });

    it.each([
      ['a public-looking name that resolves to loopback', (port: number) => `http://public-looking.example.com:${port}/`],
      ['a loopback literal', (port: number) => `http://127.0.0.1:${port}/`],
      ['a decimal loopback literal', (port: number) => `http://2130706433:${port}/`],
      ['an IPv4-mapped loopback literal', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
      ['localhost', (port: number) => `http://localhost:${port}/`],
      ['a name with one private address among public ones', (port: number) => `http://mixed.example.com:${port}/`],
    ])('refuses a redirect to %s, and sends it nothing', async (_name, location) => {
      const { internal, entry, opts } = await setup(location);
      const error = await refusedWith(guardedFetchWithPolicy(`http://entry.example.test:${entry.port}/go`, opts, entryOnly), 'address');
      expect(error.addressClass).toMatch(/loopback|private/);
      expect(entry.requests).toHaveLength(1);
      expect(internal.requests).toHaveLength(0);
    });
  });
});

describe('guardedFetch: addresses', () => {
  it('refuses a name when any of its addresses is private, without connecting', async () => {
    const dnsTable = fakeDns({ 'mixed.example.com': ['93.184.216.34', '10.0.0.5'], 'mapped.example.com': ['8.8.8.8', '::ffff:127.0.0.1'] });
    const opts = options({ allowPrivate: false, lookup: dnsTable.lookup, timeoutMs: 10_000 });
    const mixed = await refusedWith(guardedFetch('http://mixed.example.com/', opts), 'address');
    expect(mixed.addressClass).toBe('private');
    expect(mixed.message).toContain('10.0.0.5');
    expect((await refusedWith(guardedFetch('http://mapped.example.com/', opts), 'address')).addressClass).toBe('loopback');
  });

  it('refuses cloud metadata even with allowPrivate', async () => {
    const dnsTable = fakeDns({ 'metadata.example.test': ['169.254.169.254'] });
    const opts = options({ allowPrivate: true, lookup: dnsTable.lookup, timeoutMs: 10_000 });
    expect((await refusedWith(guardedFetch('http://169.254.169.254/latest/meta-data/', opts), 'address')).addressClass).toBe('metadata');
    await refusedWith(guardedFetch('http://metadata.example.test/', opts), 'address');
    await refusedWith(guardedFetch('http://[fd00:ec2::254]/', opts), 'address');
    await refusedWith(guardedFetch('http://[::ffff:169.254.169.254]/', opts), 'address');
  });

  it('reports resolver failures as dns', async () => {
    const bad = async (hostname: string): Promise<ResolvedAddress[]> => {
      if (hostname === 'empty.example.test') return [];
      if (hostname === 'garbage.example.test') return [{ address: 'not-an-ip', family: 4 }];
      throw new Error('ENOTFOUND');
    };
    const opts = options({ lookup: bad });
    await failedWith(guardedFetch('http://missing.example.test/', opts), 'dns');
    await failedWith(guardedFetch('http://empty.example.test/', opts), 'dns');
    await failedWith(guardedFetch('http://garbage.example.test/', opts), 'dns');
  });

  it('times out a resolver that never answers', async () => {
    const hang = (): Promise<ResolvedAddress[]> => new Promise(() => {});
    await failedWith(guardedFetch('http://slow-dns.example.test/', options({ lookup: hang, timeoutMs: 200 })), 'timeout');
  });
});

describe('guardedFetch: URLs', () => {
  it.each([
    'not a url',
    '/relative/path',
    '//example.com/x',
    'http://',
    'ftp://example.com/file',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'data:text/html,<p>x</p>',
    'http://exa mple.com/',
    'http://1.2.3.4.5/',
  ])('refuses %j as an invalid URL', async (url) => {
    expect(await failure(guardedFetch(url, options()))).toBeInstanceOf(InvalidUrlError);
  });

  it('refuses URLs with credentials without connecting', async () => {
    const server = await startServer((_req, res) => send(res, 'text/plain', 'x'));
    const error = await refusedWith(guardedFetch(`http://user:hunter2@127.0.0.1:${server.port}/`, options()), 'credentials');
    expect(error.message).not.toContain('hunter2');
    await refusedWith(guardedFetch(`http://user@127.0.0.1:${server.port}/`, options()), 'credentials');
    await refusedWith(guardedFetch(`http://:pw@127.0.0.1:${server.port}/`, options()), 'credentials');
    expect(server.requests).toHaveLength(0);
  });

  it('checks its options', async () => {
    await expect(guardedFetch('http://127.0.0.1/', options({ maxBytes: 0 }))).rejects.toBeInstanceOf(RangeError);
    await expect(guardedFetch('http://127.0.0.1/', options({ maxRedirects: -1 }))).rejects.toBeInstanceOf(RangeError);
  });
});

describe('guardedFetch: time', () => {
  it('times out a body that trickles, and closes the connection', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    await failedWith(guardedFetch(server.origin, options({ timeoutMs: 400 })), 'timeout');
    // The body never ends: only the time budget stops it (the bound is wide for a busy machine).
    expect(Date.now() - started).toBeLessThan(15_000);
    await eventually(() => server.sockets.size === 0);
  });

  it('times out a server that never answers', async () => {
    const server = await startServer(() => {});
    await failedWith(guardedFetch(server.origin, options({ timeoutMs: 300 })), 'timeout');
    await eventually(() => server.sockets.size === 0);
  });

  it('counts the time of every redirect against one budget', async () => {
    const server = await startServer((req, res) => {
      const n = Number(req.url!.slice(1));
      setTimeout(() => {
        if (n > 0) {
          res.writeHead(302, { location: `/${n - 1}` });
          res.end();
        } else send(res, 'text/plain', 'end');
      }, 150);
    });
    // Each hop takes 150 ms, well under the limit; the chain of five does not.
    await failedWith(guardedFetch(`${server.origin}/4`, options({ timeoutMs: 500 })), 'timeout');
    expect(server.requests.length).toBeLessThanOrEqual(4);
  });

  it('honours the caller signal, before and during the fetch', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await failedWith(guardedFetch(server.origin, options({ signal: controller.signal })), 'aborted');
    await eventually(() => server.sockets.size === 0);
    const before = server.requests.length;
    await failedWith(guardedFetch(server.origin, options({ signal: AbortSignal.abort() })), 'aborted');
    expect(server.requests.length).toBe(before);
  });
});

describe('guardedFetch: size and encodings', () => {
  // 50 MB of zeros: about 50 KB gzipped or deflated, a few KB with brotli.
  const bomb = Buffer.alloc(50 * 1024 * 1024);
  const gzipBomb = zlib.gzipSync(bomb, { level: 9 });
  const brotliBomb = zlib.brotliCompressSync(bomb, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
  const deflateBomb = zlib.deflateSync(bomb, { level: 9 });

  it.each([
    ['gzip', gzipBomb],
    ['br', brotliBomb],
    ['deflate', deflateBomb],
  ])('stops a %s bomb at maxBytes, quickly', async (encoding, compressed) => {
    expect(compressed.length).toBeLessThan(100 * 1024);
    const server = await startServer((_req, res) =>
      send(res, 'text/plain', compressed, { 'content-encoding': encoding, 'content-length': compressed.length }),
    );
    const started = Date.now();
    const error = await failedWith(guardedFetch(server.origin, options({ maxBytes: 10 * 1024 * 1024 })), 'too-large');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(error.message).toContain(String(10 * 1024 * 1024));
    await eventually(() => server.sockets.size === 0);
  });

  it('decodes gzip, deflate (zlib and raw), brotli and stacked codings', async () => {
    const text = 'Grüße, '.repeat(1000);
    const bodies: Record<string, [string, Buffer]> = {
      '/gzip': ['gzip', zlib.gzipSync(text)],
      '/x-gzip': ['x-gzip', zlib.gzipSync(text)],
      '/deflate': ['deflate', zlib.deflateSync(text)],
      '/raw-deflate': ['deflate', zlib.deflateRawSync(text)],
      '/br': ['br', zlib.brotliCompressSync(text)],
      '/stacked': ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(text))],
      '/identity': ['identity', Buffer.from(text)],
    };
    const server = await startServer((req, res) => {
      const [encoding, body] = bodies[req.url!]!;
      send(res, 'text/plain; charset=utf-8', body, { 'content-encoding': encoding });
    });
    for (const path of Object.keys(bodies)) {
      expect((await guardedFetch(`${server.origin}${path}`, options())).body, path).toBe(text);
    }
  });

  it('refuses a Content-Length over the cap before reading the body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 20 * 1024 * 1024 });
      res.write('a little'); // then nothing: waiting for the body would time out
    });
    const started = Date.now();
    // Waiting for the body would end in 'timeout' after a minute, not in 'too-large'.
    await failedWith(guardedFetch(server.origin, options({ maxBytes: 10 * 1024 * 1024, timeoutMs: 60_000 })), 'too-large');
    expect(Date.now() - started).toBeLessThan(15_000);
    await eventually(() => server.sockets.size === 0);
  });

  it('refuses a chunked body over the cap, and accepts one exactly at it', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const total = req.url === '/exact' ? 1000 : 1001;
      for (let sent = 0; sent < total; sent += 100) res.write('x'.repeat(Math.min(100, total - sent)));
      res.end();
    });
    expect((await guardedFetch(`${server.origin}/exact`, options({ maxBytes: 1000 }))).body).toHaveLength(1000);
    await failedWith(guardedFetch(`${server.origin}/over`, options({ maxBytes: 1000 })), 'too-large');
  });

  it('caps the compressed bytes too (endless empty gzip members)', async () => {
    const empty = zlib.gzipSync(Buffer.alloc(0));
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      for (let i = 0; i < 200; i++) res.write(empty);
      res.end();
    });
    await failedWith(guardedFetch(server.origin, options({ maxBytes: 1000 })), 'too-large');
  });

  it('refuses unknown codings and corrupt compressed data', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/compress') send(res, 'text/plain', 'x', { 'content-encoding': 'compress' });
      else send(res, 'text/plain', Buffer.from('this is not gzip at all'), { 'content-encoding': 'gzip' });
    });
    await failedWith(guardedFetch(`${server.origin}/compress`, options()), 'encoding');
    await failedWith(guardedFetch(`${server.origin}/corrupt`, options()), 'decode');
  });

  it('fails when the connection drops mid-body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 1000 });
      res.write('only part of it', () => res.socket?.destroy());
    });
    await failedWith(guardedFetch(server.origin, options()), 'truncated');
  });

  it('fails when nothing listens', async () => {
    const server = await startServer(() => {});
    const port = server.port;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    await failedWith(guardedFetch(`http://127.0.0.1:${port}/`, options()), 'network');
  });
});

describe('guardedFetch: charsets', () => {
  const cafe1252 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]); // "café €" in windows-1252

  async function fetchWith(type: string | undefined, body: Buffer | string) {
    const server = await startServer((_req, res) => send(res, type, body));
    return guardedFetch(server.origin, options());
  }

  it('defaults to UTF-8', async () => {
    const page = await fetchWith('text/plain', 'naïve – 日本語');
    expect(page.body).toBe('naïve – 日本語');
    expect(page.charset).toBe('utf-8');
  });

  it('decodes the charset in Content-Type (latin1 labels mean windows-1252)', async () => {
    for (const label of ['windows-1252', 'ISO-8859-1', 'latin1', '"cp1252"']) {
      const page = await fetchWith(`text/plain; charset=${label}`, cafe1252);
      expect(page.body, label).toBe('café €');
      expect(page.charset).toBe('windows-1252');
    }
  });

  it('decodes other encodings TextDecoder knows', async () => {
    const sjis = Buffer.from([0x93, 0xfa, 0x96, 0x7b]); // 日本 in Shift_JIS
    expect((await fetchWith('text/plain; charset=shift_jis', sjis)).body).toBe('日本');
    const koi8 = Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]); // Привет in KOI8-R
    expect((await fetchWith('text/plain; charset=koi8-r', koi8)).body).toBe('Привет');
  });

  it('reads <meta charset> in HTML when the header has none', async () => {
    const html = Buffer.concat([Buffer.from('<html><head><meta charset="windows-1252"><title>'), cafe1252, Buffer.from('</title>')]);
    const page = await fetchWith('text/html', html);
    expect(page.body).toContain('<title>café €</title>');
    expect(page.charset).toBe('windows-1252');
    const equiv = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><p>'),
      cafe1252,
    ]);
    expect((await fetchWith('text/html', equiv)).body).toContain('café');
  });

  it('prefers the header over <meta>, and ignores <meta> outside HTML or past 1024 bytes', async () => {
    const utf8 = Buffer.from('<meta charset="windows-1252"><p>café</p>');
    expect((await fetchWith('text/html; charset=utf-8', utf8)).body).toContain('café');
    expect((await fetchWith('text/plain', utf8)).body).toContain('café');
    const late = Buffer.concat([Buffer.from(`<p>${' '.repeat(1100)}</p><meta charset="windows-1252">`), Buffer.from('café')]);
    expect((await fetchWith('text/html', late)).charset).toBe('utf-8');
  });

  it('lets a byte order mark win', async () => {
    const bom8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('café')]);
    const page = await fetchWith('text/plain; charset=windows-1252', bom8);
    expect(page.body).toBe('café');
    expect(page.charset).toBe('utf-8');
    const bom16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>café</p>', 'utf16le')]);
    const utf16 = await fetchWith(undefined, bom16);
    expect(utf16.body).toBe('<p>café</p>');
    expect(utf16.contentType).toBe('text/html');
  });

  it('falls back to UTF-8 for unknown labels', async () => {
    const page = await fetchWith('text/plain; charset=no-such-charset', 'café');
    expect(page.body).toBe('café');
    expect(page.charset).toBe('utf-8');
  });
});

describe('describeFetchFailure: what a caller is told', () => {
  /** The caller's message for a fetch that must fail, checked to leak nothing it should not. */
  async function told(url: string, opts: GuardedFetchOptions, policy = defaultAddressPolicy): Promise<string> {
    const error = await failure(guardedFetchWithPolicy(url, opts, policy));
    expect(error instanceof FetchFailedError || error instanceof FetchRefusedError, String(error)).toBe(true);
    const message = describeFetchFailure(error as FetchFailedError | FetchRefusedError, opts);
    expect(message).not.toMatch(/secret|internal data|10\.0\.0\.5|\bat .+:\d+/);
    return message;
  }

  it('names the remote status with its reason phrase', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(req.url === '/gone' ? 410 : 404, { 'content-type': 'text/html' });
      res.end('<p>secret body text</p>');
    });
    expect(await told(`${server.origin}/missing`, options())).toBe('the server answered 404 Not Found');
    expect(await told(`${server.origin}/gone`, options())).toBe('the server answered 410 Gone');
  });

  it('says a page was too large, with the limit', async () => {
    const server = await startServer((_req, res) => send(res, 'text/plain', 'x'.repeat(5000)));
    expect(await told(server.origin, options({ maxBytes: 1024 }))).toBe('too large: the page is larger than the limit of 1024 bytes');
    const big = await startServer((_req, res) => send(res, 'text/plain', 'x', { 'content-length': String(3 * 1024 * 1024) }));
    expect(await told(big.origin, options({ maxBytes: 2 * 1024 * 1024 }))).toBe(
      'too large: the page is larger than the limit of 2 MB (2097152 bytes)',
    );
  });

  it('names an unsupported content type and the accepted ones', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/pdf') send(res, 'application/pdf', '%PDF-1.7');
      else send(res, undefined, Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]));
    });
    expect(await told(`${server.origin}/pdf`, options())).toBe(
      'unsupported content type "application/pdf" (accepted: text/html, application/xhtml+xml, text/markdown, text/plain)',
    );
    expect(await told(`${server.origin}/binary`, options())).toMatch(/^unsupported content: the page has no usable Content-Type and is not text/);
  });

  it('says a fetch timed out, with the time allowed', async () => {
    const server = await startServer(() => {});
    expect(await told(server.origin, options({ timeoutMs: 300 }))).toBe('timeout: the page did not arrive within 0.3 s');
  });

  it('counts redirects and names a scheme it will not follow', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(302, { location: req.url === '/ftp' ? 'ftp://127.0.0.1/file' : '/loop' });
      res.end();
    });
    expect(await told(`${server.origin}/loop`, options({ maxRedirects: 2 }))).toBe('too many redirects: more than 2');
    expect(await told(`${server.origin}/ftp`, options())).toBe('a redirect led to the scheme "ftp:": only http and https URLs are fetched');
  });

  it('says a name was not found, naming it', async () => {
    const { lookup } = fakeDns({});
    expect(await told('http://missing.example.test/', options({ lookup }))).toBe(
      'name not found: "missing.example.test" could not be resolved (DNS)',
    );
  });

  it('tells a refused connection from a reset one and from a body cut short', async () => {
    const closed = await startServer(() => {});
    const port = closed.port;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    expect(await told(`http://127.0.0.1:${port}/`, options())).toMatch(/^connection refused/);

    const reset = await startServer((req) => req.socket.resetAndDestroy());
    expect(await told(reset.origin, options())).toBe('connection reset by the server');

    const cut = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 1000 });
      res.write('only part of it', () => res.socket?.destroy());
    });
    expect(await told(cut.origin, options())).toBe('the connection closed before the whole page was received');
  });

  it('names the certificate problem of a TLS failure', async () => {
    const server = https.createServer({ key: TEST_KEY, cert: TEST_CERT }, (_req, res) => send(res, 'text/plain', 'secret'));
    const { port } = await listen(server);
    const { lookup } = fakeDns({ 'secure.example.test': ['127.0.0.1'] });
    expect(await told(`https://secure.example.test:${port}/`, options({ lookup }))).toBe(
      'the TLS handshake or certificate check failed (DEPTH_ZERO_SELF_SIGNED_CERT)',
    );
  });

  it('names an unsupported content coding, and says when the compressed body is corrupt', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/compress') send(res, 'text/plain', 'x', { 'content-encoding': 'compress' });
      else send(res, 'text/plain', Buffer.from('this is not gzip at all'), { 'content-encoding': 'gzip' });
    });
    expect(await told(`${server.origin}/compress`, options())).toBe('unsupported Content-Encoding "compress"');
    expect(await told(`${server.origin}/corrupt`, options())).toBe('the compressed page could not be decompressed');
  });

  it('refuses an address that is not public naming the setting that allows it, but not the address', async () => {
    const { lookup } = fakeDns({ 'intranet.example.test': ['10.0.0.5'], 'metadata.example.test': ['169.254.169.254'] });
    const closed = options({ allowPrivate: false, lookup });
    expect(await told('http://intranet.example.test/', closed)).toBe(
      'address not allowed: "intranet.example.test" is, or resolves to, a private address; ' +
        'only public addresses are fetched unless KB_ALLOW_PRIVATE_URLS=true is set on the server',
    );
    expect(await told('http://localhost:1/', closed)).toMatch(/^address not allowed: "localhost" is, or resolves to, a loopback address; .*KB_ALLOW_PRIVATE_URLS/);
    // Cloud metadata stays refused with the setting on: the message does not offer it.
    const metadata = await told('http://metadata.example.test/', options({ allowPrivate: true, lookup }));
    expect(metadata).toBe('address not allowed: "metadata.example.test" is, or resolves to, a cloud metadata address; such addresses are never fetched');
  });

  it('refuses credentials in the URL without repeating them', async () => {
    expect(await told('http://user:secret@127.0.0.1:1/', options())).toBe(
      'the URL, or a redirect, carries a user name or password (user:password@), which is not sent',
    );
  });

  it('says a cancelled fetch was cancelled', async () => {
    const server = await startServer(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await told(server.origin, options({ signal: controller.signal }))).toBe('the fetch was cancelled');
  });
});

// A self-signed certificate for secure.example.test, for the SNI test only (valid until 2126).
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNQv54bGiNC5+n4aI
pfLPwKMRyas2vaJZUAZxI8sxM56hRANCAASxr4XTwZlVn/9W8afi8VyAd2d0VS5+
yWdtG9qTrqNKGN/hLvcbSGWxMWGbquf+ZPzHDiDg3gLIbRtYbbr/0A/2
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIUNH2VwPde6q88lQjsRgiCKYiF2dUwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTc2VjdXJlLmV4YW1wbGUudGVzdDAgFw0yNjExMjEwNjQ3MDha
GA8yMTI2MTAyODA2NDcwOFowHjEcMBoGA1UEAwwTc2VjdXJlLmV4YW1wbGUudGVz
dDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABLGvhdPBmVWf/1bxp+LxXIB3Z3RV
Ln7JZ20b2pOuo0oY3+Eu9xtIZbExYZuq5/5k/McOIODeAshtG1htuv/QD/ajczBx
MB0GA1UdDgQWBBQU0ONvxSlNRUZ6UGoX6+Q5NmE/WTAfBgNVHSMEGDAWgBQU0ONv
xSlNRUZ6UGoX6+Q5NmE/WTAPBgNVHRMBAf8EBTADAQH/MB4GA1UdEQQXMBWCE3Nl
Y3VyZS5leGFtcGxlLnRlc3QwCgYIKoZIzj0EAwIDSAAwRQIhANmc3aqzumGgglqA
HGK7sYoPSNU2Vi4kti1k/qhvlj7zAiBYEkXx+vo6/0gNwyhJ+khu8ZcoVm1EbGnx
+7nfto/FPw==
-----END CERTIFICATE-----
`;
