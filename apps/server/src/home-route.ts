import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendStatic, staticBody, type StaticBody } from './static-files.ts';

/**
 * GET /: a page saying what this server is, with links to the console and the API reference, and
 * how to embed the assistant; given a publishable key (`/?key=kb_pub_…`), the assistant itself
 * runs on the page as a live preview (the server's own origin is allowed for every publishable
 * key). No inline script or style: its stylesheet is /home.css and the preview is the embed
 * script tag itself.
 */

export const HOME_CSS_PATH = '/home.css';

/** Publishable keys: kb_pub_ and 40 base62 characters. Anything else is not put on the page. */
const PUBLISHABLE_KEY = /^kb_pub_[A-Za-z0-9]{40}$/;

export const HOME_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CSS = `*{box-sizing:border-box}
body{margin:0;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f9fafb}
main{max-width:760px;margin:0 auto;padding:40px 20px 120px}
h1{font-size:28px;margin:0 0 4px}h2{font-size:20px;margin:32px 0 8px}
.version{color:#4b5563;margin:0 0 20px}
a{color:#4338ca}
nav ul{display:flex;flex-wrap:wrap;gap:10px;list-style:none;padding:0;margin:16px 0}
nav a{display:inline-block;padding:8px 14px;border:1px solid #d1d5db;border-radius:8px;background:#fff;text-decoration:none;font-weight:600}
nav a:hover{border-color:#4338ca}
pre{background:#111827;color:#f9fafb;padding:14px;border-radius:8px;overflow-x:auto;font-size:13px;line-height:1.5}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
p code,li code{background:#e5e7eb;padding:1px 4px;border-radius:4px;font-size:14px}
.preview{border:1px solid #c7d2fe;background:#eef2ff;border-radius:10px;padding:14px 16px}
form{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
label{font-weight:600}
input{flex:1;min-width:220px;font:inherit;padding:8px 10px;border:1px solid #9ca3af;border-radius:8px}
button{font:inherit;padding:8px 14px;border:0;border-radius:8px;background:#4338ca;color:#fff;font-weight:600;cursor:pointer}
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export interface HomeRoutes {
  cssPath: string;
  handle(req: IncomingMessage, res: ServerResponse, url: URL, secure: boolean): void;
  handleCss(req: IncomingMessage, res: ServerResponse): void;
}

export function createHomeRoutes(options: { version: string; widgetPath: string; widgetScript: () => string | undefined }): HomeRoutes {
  const css: StaticBody = staticBody('text/css; charset=utf-8', Buffer.from(CSS));

  function page(origin: string, key: string | undefined): string {
    const embed = `<script src="${origin}${options.widgetPath}" data-key="${key ?? 'kb_pub_…'}" defer></script>`;
    const script = options.widgetScript();
    const preview = key
      ? script
        ? `<p class="preview" id="preview">The assistant is live on this page with the key <code>${escapeHtml(key.slice(0, 14))}…</code>: press <strong>Ctrl+I</strong> (<strong>⌘I</strong> on a Mac) or the <strong>Ask AI</strong> button at the bottom right.</p>`
        : `<p class="preview">The assistant's script has not been built: run <code>pnpm build</code>.</p>`
      : `<form method="get" action="/">
        <label for="key">Try it here with a publishable key</label>
        <input id="key" name="key" required pattern="kb_pub_[A-Za-z0-9]{40}" placeholder="kb_pub_…" autocomplete="off" spellcheck="false">
        <button type="submit">Preview</button>
      </form>`;
    return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Knowledge base service</title>
    <link rel="stylesheet" href="${HOME_CSS_PATH}">
  </head>
  <body>
    <main>
      <h1>Knowledge base service</h1>
      <p class="version">Version ${escapeHtml(options.version)}</p>
      <p>This server keeps a searchable knowledge base of documentation and answers questions about it: search, streamed answers that cite their pages, and FAQs, over an HTTP API.</p>
      <nav aria-label="Where to go">
        <ul>
          <li><a href="/admin/">Admin console</a></li>
          <li><a href="/api/v1/docs">API reference</a></li>
          <li><a href="/api/v1/openapi.json">OpenAPI document</a></li>
          <li><a href="/healthz">Health</a></li>
        </ul>
      </nav>
      <h2>Add the assistant to your documentation</h2>
      <p>Create a publishable key (kind <code>publishable</code>) that allows your site's origin, in the admin console or with <code>POST /api/v1/keys</code>, then add one line to your pages:</p>
      <pre><code>${escapeHtml(embed)}</code></pre>
      <p>A page with a Content-Security-Policy allows this server in <code>script-src</code> and <code>connect-src</code>: <code>${escapeHtml(origin)}</code>. The assistant's attributes (title, welcome text, example questions, colours, theme, position, shortcut, namespaces, history) are described in the service's <code>docs/assistant.md</code>.</p>
      ${preview}
    </main>
    ${key && script ? `<script src="${script}" data-key="${key}" data-heading="Ask the docs (preview)" defer></script>` : ''}
  </body>
</html>
`;
  }

  return {
    cssPath: HOME_CSS_PATH,
    handle(req, res, url, secure) {
      // The address pages embed the script from, as this request reached the server (a Host that is not a host name gets a placeholder).
      const host = String(req.headers.host ?? '');
      const origin = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `${secure ? 'https' : 'http'}://${host}` : 'https://kb.example.com';
      const asked = url.searchParams.get('key') ?? undefined;
      const key = asked !== undefined && PUBLISHABLE_KEY.test(asked) ? asked : undefined;
      const body = staticBody('text/html; charset=utf-8', Buffer.from(page(origin, key)));
      sendStatic(req, res, body, {
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': HOME_CONTENT_SECURITY_POLICY,
        'Referrer-Policy': 'no-referrer',
        'X-Frame-Options': 'DENY',
      });
    },
    handleCss(req, res) {
      sendStatic(req, res, css, { 'Cache-Control': 'no-cache' });
    },
  };
}
