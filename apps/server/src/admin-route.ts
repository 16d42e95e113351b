import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { AppError } from '@kb/core';
import { contentTypeOf, IMMUTABLE, sendStatic, staticBody, type StaticBody } from './static-files.ts';

/**
 * GET /admin: the admin console, a single-page app built by @kb/admin (Vite) into its dist
 * folder and served from there. index.html is revalidated on every load (it names the current
 * assets); the assets, whose names carry a content hash, are cached for good. Any other path
 * below /admin/ without a file extension is a page of the app and gets index.html; a missing
 * file is a 404.
 */

export const ADMIN_PATH = '/admin';

/**
 * What the console may do: its scripts and styles from here only (no inline script or style:
 * React sets element styles through the DOM, which the policy allows), calls to this server's
 * API, nothing else; never framed. The session cookie is HttpOnly, so even an injected script
 * could not read it.
 */
export const ADMIN_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'Cache-Control': 'no-cache',
  'Content-Security-Policy': ADMIN_CONTENT_SECURITY_POLICY,
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** The meta tag in index.html through which the page learns whether admin sign-in is configured. */
const LOGIN_META = /<meta name="kb-admin-login" content="[^"]*">/;

/** A file name the console's build can hold: no path separators, no leading dot. */
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

const NOT_BUILT_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Admin console not built</title>
  </head>
  <body>
    <h1>The admin console has not been built</h1>
    <p>Its files are made by the build: run <code>pnpm build</code> (<code>pnpm install</code> runs it too), then reload this page.</p>
    <p>The API itself works without it: see <a href="/api/v1/docs">the API reference</a>.</p>
  </body>
</html>
`;

export interface AdminRoutes {
  /** The exact path /admin ... */
  path: string;
  /** ... and everything below it. */
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): void;
}

interface Cached {
  body: StaticBody;
  mtimeMs: number;
}

/**
 * The console below /admin, its files read from `dir` on first use and kept in memory (about
 * 250 KB). `loginEnabled` tells the page whether to offer sign-in or to explain how to enable it.
 */
export function createAdminRoutes(options: { dir: string; loginEnabled: boolean }): AdminRoutes {
  const { dir, loginEnabled } = options;
  const files = new Map<string, Cached>();
  let notBuilt: StaticBody | undefined;

  /** A file of the build, re-read when it changed (a rebuild while the server runs). */
  function file(relative: string, transform?: (text: string) => string): StaticBody | undefined {
    const path = join(dir, relative);
    let mtimeMs: number;
    try {
      const stat = statSync(path);
      if (!stat.isFile()) return undefined;
      mtimeMs = stat.mtimeMs;
    } catch {
      return undefined;
    }
    const known = files.get(relative);
    if (known && known.mtimeMs === mtimeMs) return known.body;
    const raw = readFileSync(path);
    const body = staticBody(contentTypeOf(relative) ?? 'application/octet-stream', transform ? Buffer.from(transform(raw.toString('utf8'))) : raw);
    files.set(relative, { body, mtimeMs });
    return body;
  }

  function sendIndex(req: IncomingMessage, res: ServerResponse): void {
    const index = file('index.html', (html) =>
      html.replace(LOGIN_META, `<meta name="kb-admin-login" content="${loginEnabled ? 'enabled' : 'disabled'}">`),
    );
    if (index) return sendStatic(req, res, index, PAGE_HEADERS);
    notBuilt ??= staticBody('text/html; charset=utf-8', Buffer.from(NOT_BUILT_PAGE));
    sendStatic(req, res, notBuilt, PAGE_HEADERS, 503);
  }

  function notFound(pathname: string): never {
    throw new AppError('NOT_FOUND', `No file ${pathname.slice(0, 300)}`);
  }

  return {
    path: ADMIN_PATH,
    prefix: `${ADMIN_PATH}/`,
    handle(req, res, pathname) {
      if (pathname === ADMIN_PATH) {
        // The app's addresses are below /admin/: the bare form sends the reader there.
        res.writeHead(301, { Location: 'admin/', 'Content-Length': 0 });
        res.end();
        return;
      }
      const segments = pathname.slice(ADMIN_PATH.length + 1).split('/');
      if (segments[0] === 'assets') {
        // Hashed build output: found, or a 404 (never the page, which a script tag cannot run).
        const name = segments[1];
        const asset = segments.length === 2 && name !== undefined && FILE_NAME.test(name) && contentTypeOf(name) ? file(`assets/${name}`) : undefined;
        if (!asset) notFound(pathname);
        return sendStatic(req, res, asset, { 'Cache-Control': IMMUTABLE });
      }
      const last = segments[segments.length - 1]!;
      if (last.includes('.')) {
        // A file at the top of the build (an icon): its name has no hash, so it is revalidated.
        const name = segments.length === 1 && FILE_NAME.test(last) && last !== 'index.html' && contentTypeOf(last) ? file(last) : undefined;
        if (!name) notFound(pathname);
        return sendStatic(req, res, name, { 'Cache-Control': 'no-cache' });
      }
      // A page of the app (/admin/, /admin/keys, ...): the app reads the path and shows it.
      sendIndex(req, res);
    },
  };
}
