/** A website served on loopback for source-sync tests: pages, robots.txt, sitemaps, ETags, 304s, redirects. */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRoute {
  status?: number;
  body?: string | Uint8Array;
  /** Default text/html; null sends none. */
  contentType?: string | null;
  /** A redirect target (relative or absolute). */
  location?: string;
  /** Sends an ETag (and answers If-None-Match with 304); default true for 200s. */
  etag?: boolean;
  /** Streams this many bytes of HTML, never ending early (the client must cut it). */
  streamBytes?: number;
  /** A function of the request count of this path: a route that changes per request. */
  dynamic?: (count: number, url: URL) => FakeRoute;
  /** The answer waits for this (a sync held mid-way until the test lets it go on). */
  hold?: Promise<void>;
}

export interface FakeSite {
  url: string;
  routes: Map<string, FakeRoute>;
  /** Requests per path (with query), and the 304s answered. */
  requests: Map<string, number>;
  notModified: number;
  /** Every request's User-Agent. */
  userAgents: Set<string>;
  total(): number;
  close(): Promise<void>;
}

export function htmlPage(title: string, body: string, extraHead = ''): string {
  return `<!doctype html><html><head><title>${title}</title>${extraHead}</head><body><nav><a href="/">Home</a></nav><main><h1>${title}</h1>${body}</main><footer>Footer text</footer></body></html>`;
}

export async function startFakeSite(): Promise<FakeSite> {
  const routes = new Map<string, FakeRoute>();
  const requests = new Map<string, number>();
  const userAgents = new Set<string>();
  let notModified = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (route?.hold) void route.hold.then(() => serve(req, res));
    else serve(req, res);
  });
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = url.pathname + url.search;
    const count = (requests.get(key) ?? 0) + 1;
    requests.set(key, count);
    userAgents.add(req.headers['user-agent'] ?? '');
    let route = routes.get(key) ?? routes.get(url.pathname);
    if (route?.dynamic) route = route.dynamic(count, url);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
      return;
    }
    const status = route.status ?? (route.location ? 301 : 200);
    if (route.location) {
      res.writeHead(status, { location: route.location }).end();
      return;
    }
    if (route.streamBytes !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const write = () => {
        while (sent < route.streamBytes!) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', write);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => {
        sent = Number.POSITIVE_INFINITY;
      });
      write();
      return;
    }
    const body = route.body ?? '';
    const headers: Record<string, string> = route.contentType === null ? {} : { 'content-type': route.contentType ?? 'text/html; charset=utf-8' };
    if (status === 200 && route.etag !== false) {
      const etag = `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
      headers['etag'] = etag;
      if (req.headers['if-none-match'] === etag) {
        notModified++;
        res.writeHead(304, { etag }).end();
        return;
      }
    }
    res.writeHead(status, headers).end(body);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    requests,
    get notModified() {
      return notModified;
    },
    userAgents,
    total: () => [...requests.values()].reduce((a, b) => a + b, 0),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sitemapXml(urls: Array<{ loc: string; lastmod?: string }>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls
    .map((u) => `  <url><loc>${u.loc.replace(/&/g, '&amp;')}</loc>${u.lastmod ? `<lastmod>${u.lastmod}</lastmod>` : ''}</url>`)
    .join('\n')}\n</urlset>\n`;
}
