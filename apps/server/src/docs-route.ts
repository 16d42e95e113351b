import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AppError } from '@kb/core';
import { IMMUTABLE, sendStatic, staticBody, type StaticBody } from './static-files.ts';

/**
 * GET /api/v1/docs: the API reference, Swagger UI rendering the service's own OpenAPI document.
 * Everything it loads comes from this server (the swagger-ui-dist package's static bundle), so
 * the page works offline and its Content-Security-Policy admits nothing else.
 */

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_VERSION = (JSON.parse(readFileSync(join(SWAGGER_UI_DIR, 'package.json'), 'utf8')) as { version: string }).version;

/** The files the page loads, by name; served below a path that carries the bundle's version. */
const ASSETS: Record<string, { type: string; file?: string; text?: () => string }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', file: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', file: 'swagger-ui-bundle.js' },
  'favicon-32x32.png': { type: 'image/png', file: 'favicon-32x32.png' },
  'favicon-16x16.png': { type: 'image/png', file: 'favicon-16x16.png' },
  // The page's own start-up script: a file, not inline, so the policy needs no 'unsafe-inline' script.
  'kb-docs.js': { type: 'text/javascript; charset=utf-8', text: () => INIT_SCRIPT },
};

const INIT_SCRIPT = `window.addEventListener('DOMContentLoaded', function () {
  window.ui = SwaggerUIBundle({
    url: document.body.dataset.openapi,
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The public validator is another host: never contacted.
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
  });
});
`;

/** The page and its assets, both relative to /api/v1/docs, so a path prefix in front of the service keeps working. */
function page(assetBase: string): string {
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Knowledge base service API</title>
    <link rel="stylesheet" href="${assetBase}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${assetBase}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${assetBase}/favicon-16x16.png" sizes="16x16">
  </head>
  <body data-openapi="openapi.json">
    <noscript>The reference needs JavaScript; the document itself is at <a href="openapi.json">openapi.json</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="${assetBase}/swagger-ui-bundle.js"></script>
    <script src="${assetBase}/kb-docs.js"></script>
  </body>
</html>
`;
}

/**
 * What the page may do: its scripts and styles from here (Swagger UI sets element styles, hence
 * 'unsafe-inline' for styles only), images from here or inline (its icons), requests to this
 * server (the document, and "Try it out"), nothing else; never framed.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface DocsRoutes {
  /** The exact path of the page. */
  path: string;
  /** The prefix of its assets. */
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): void;
}

/**
 * The reference page and its assets below `basePath` (/api/v1). Files are read on first use and
 * kept with their gzipped copies (about 2.4 MB): a server whose reference nobody opens never loads them.
 */
export function createDocsRoutes(basePath: string): DocsRoutes {
  const path = `${basePath}/docs`;
  const versioned = `ui-${SWAGGER_UI_VERSION}`;
  const bodies = new Map<string, StaticBody>();

  function asset(name: string): StaticBody | undefined {
    const known = bodies.get(name);
    if (known) return known;
    const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!spec) return undefined;
    const loaded = staticBody(spec.type, spec.file ? readFileSync(join(SWAGGER_UI_DIR, spec.file)) : Buffer.from(spec.text!()));
    bodies.set(name, loaded);
    return loaded;
  }

  return {
    path,
    prefix: `${path}/`,
    handle(req, res, pathname) {
      if (pathname === path) {
        const html = bodies.get('') ?? staticBody('text/html; charset=utf-8', Buffer.from(page(`docs/${versioned}`)));
        bodies.set('', html);
        // Revalidated each time (cheap with the ETag): the page names the current assets.
        sendStatic(req, res, html, { 'Cache-Control': 'no-cache', 'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY, 'Referrer-Policy': 'no-referrer' });
        return;
      }
      if (pathname === `${path}/`) {
        // The page's asset addresses are relative to /docs, so the slash form sends the reader there.
        res.writeHead(301, { Location: '../docs', 'Content-Length': 0 });
        res.end();
        return;
      }
      const rest = pathname.slice(path.length + 1);
      const [version, name, ...more] = rest.split('/');
      const file = version === versioned && name !== undefined && more.length === 0 ? asset(name) : undefined;
      if (!file) throw new AppError('NOT_FOUND', `No route ${req.method} ${pathname}`);
      // The version is in the path: a new bundle gets a new address, so this one never changes.
      sendStatic(req, res, file, { 'Cache-Control': IMMUTABLE });
    },
  };
}
