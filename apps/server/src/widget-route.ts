import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '@kb/core';
import { IMMUTABLE, sendStatic, staticBody, type StaticBody } from './static-files.ts';

/**
 * The assistant's script (@kb/widget's build), at two addresses below /widget/v<major>/:
 * - `kb-assistant.js`, what pages embed: cached 5 minutes, then revalidated by ETag, so a new
 *   release (same major version) reaches every page within minutes;
 * - `kb-assistant.<hash>.js`, named by its content: cached for good (immutable), for pages that
 *   pin one build (with Subresource Integrity); a hash that is not the current build's is a 404.
 * Both are public, gzipped when the client takes it, and loadable from any origin (CORS and
 * CORP allow it: it is the same file for everyone).
 */

export const WIDGET_PREFIX = '/widget/';
const FILE = 'kb-assistant';
/** Pages re-check the moving address this often. */
const MOVING = 'public, max-age=300';
const SHARED = { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' };

export interface WidgetRoutes {
  prefix: string;
  /** The moving address of the script, e.g. /widget/v1/kb-assistant.js. */
  path: string;
  /** The current build's content-hashed address; undefined until it is built. */
  hashedPath(): string | undefined;
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): void;
}

interface Build {
  body: StaticBody;
  hash: string;
  mtimeMs: number;
}

export function createWidgetRoutes(options: { file: string; version: string }): WidgetRoutes {
  const major = options.version.split('.')[0] ?? '1';
  const base = `${WIDGET_PREFIX}v${major}/`;
  let build: Build | undefined;

  /** The built file, re-read when it changed (a rebuild while the server runs). */
  function current(): Build | undefined {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(options.file).mtimeMs;
    } catch {
      return undefined;
    }
    if (build?.mtimeMs !== mtimeMs) {
      const raw = readFileSync(options.file);
      build = { body: staticBody('text/javascript; charset=utf-8', raw), hash: createHash('sha256').update(raw).digest('hex').slice(0, 12), mtimeMs };
    }
    return build;
  }

  return {
    prefix: WIDGET_PREFIX,
    path: `${base}${FILE}.js`,
    hashedPath() {
      const found = current();
      return found && `${base}${FILE}.${found.hash}.js`;
    },
    handle(req, res, pathname) {
      const name = pathname.startsWith(base) ? pathname.slice(base.length) : undefined;
      const match = name === undefined ? null : /^kb-assistant(?:\.([0-9a-f]{12}))?\.js$/.exec(name);
      if (!match) throw new AppError('NOT_FOUND', `No file ${pathname.slice(0, 300)}: the assistant's script is ${base}${FILE}.js`);
      const found = current();
      if (!found) throw new AppError('SERVICE_UNAVAILABLE', "The assistant's script has not been built: run pnpm build");
      if (match[1] !== undefined && match[1] !== found.hash) throw new AppError('NOT_FOUND', `No build ${match[1]} of the assistant: the current one is ${base}${FILE}.${found.hash}.js`);
      sendStatic(req, res, found.body, { ...SHARED, 'Cache-Control': match[1] ? IMMUTABLE : MOVING });
    },
  };
}
