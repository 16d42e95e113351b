/**
 * `kb sources add|list|sync`: sources live in a running server (it runs their syncs), so these
 * commands call its REST API with an admin key.
 */
import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { CliError } from '../store.ts';

export const SOURCES_USAGE = `kb sources: websites and Confluence spaces the server keeps in sync

  kb sources add <url> [--sitemap URL] [--namespace NS] [--name NAME] [--every MINUTES]
                 [--prefix PATH] [--include PATTERN]... [--exclude PATTERN]... [--max-pages N] [--depth N]
                 [--no-wait] [--json]                  add a docs site and sync it (a progress bar until it ends)
  kb sources add --confluence SPACE_KEY [--namespace NS] [--name NAME] [--every MINUTES] [--no-wait] [--json]
                                                       add a Confluence space (read with the server's WIKI_* account)
  kb sources list [--json]                             list sources with their last sync
  kb sources sync <id> [--no-wait] [--json]            sync a source now

  <url> is the start URL (links are followed from it), or the sitemap when it ends in .xml.
  Common options:
  --api-url URL    the server (default http://127.0.0.1:$PORT)
  --api-key KEY    an admin API key (required)
See docs/sources.md.`;

interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Whether `out` is a terminal (the progress bar redraws one line). */
  tty: boolean;
}

interface SourceBody {
  id: string;
  name: string;
  kind: string;
  namespace: string;
  status: string;
  scheduleMinutes: number | null;
  nextSyncAt: string | null;
  settings: Record<string, unknown>;
  lastSync: { jobId: string | null; status: string; error: string | null; finishedAt: string | null; pages: Record<string, number> } | null;
}

async function call(apiUrl: string, apiKey: string, path: string, init: { method?: string; json?: unknown } = {}): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(new URL(path, apiUrl), {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${apiKey}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
  } catch (error) {
    throw new CliError(`Cannot reach the server at ${apiUrl}: ${(error as Error).message} (start it with \`pnpm start\`, or pass --api-url)`);
  }
  const body = (await res.json().catch(() => ({}))) as { message?: string; issues?: Array<{ path?: Array<string | number>; message?: string }> };
  if (!res.ok) {
    const issues = (body.issues ?? []).map((issue) => `${(issue.path ?? []).join('.') || 'input'}: ${issue.message ?? 'invalid'}`);
    throw new CliError(`HTTP ${res.status}: ${body.message ?? res.statusText}${issues.length > 0 ? ` (${issues.join('; ')})` : ''}`);
  }
  return body;
}

const BAR_WIDTH = 30;

/** One line of progress: a bar of the pages handled out of those discovered so far. */
export function progressLine(source: Pick<SourceBody, 'status' | 'lastSync'>): string {
  const pages = source.lastSync?.pages ?? {};
  const discovered = pages['discovered'] ?? 0;
  const handled = (pages['unchanged'] ?? 0) + (pages['updated'] ?? 0) + (pages['failed'] ?? 0);
  const share = discovered === 0 ? 0 : Math.min(1, handled / discovered);
  const filled = Math.round(share * BAR_WIDTH);
  const state = source.lastSync?.status === 'running' || source.status !== 'idle' ? (source.status === 'queued' ? 'queued' : 'syncing') : (source.lastSync?.status ?? 'idle');
  return (
    `[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${handled}/${discovered} pages ` +
    `(${pages['updated'] ?? 0} updated, ${pages['unchanged'] ?? 0} unchanged, ${pages['removed'] ?? 0} removed, ${pages['failed'] ?? 0} failed) ${state}`
  );
}

/** Polls the source until its sync ends, drawing the progress bar; returns the final source. */
async function follow(apiUrl: string, apiKey: string, id: string, jobId: string | null, io: Io): Promise<SourceBody> {
  let last = '';
  let printed = 0;
  for (;;) {
    const source = (await call(apiUrl, apiKey, `/api/v1/sources/${encodeURIComponent(id)}`)) as SourceBody;
    const mine = jobId === null || source.lastSync?.jobId === jobId;
    const ended = mine && source.lastSync?.finishedAt != null && (source.status === 'idle' || source.lastSync.status === 'failed');
    const line = progressLine(source);
    if (io.tty) io.out(`\r${line}\x1b[K`);
    else if (line !== last && (ended || Date.now() - printed >= 2_000)) {
      // Not a terminal (a log, CI): a line when the figures change, at most every 2 s.
      io.out(`${line}\n`);
      printed = Date.now();
      last = line;
    }
    if (ended) {
      if (io.tty) io.out('\n');
      return source;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function summary(source: SourceBody): string {
  const sync = source.lastSync;
  const schedule = source.scheduleMinutes === null ? 'on demand' : `every ${source.scheduleMinutes} min`;
  return `${source.id}  ${source.name}  ${source.namespace}  ${schedule}  last sync: ${sync ? `${sync.status}${sync.error ? ` (${sync.error})` : ''}` : 'never'}`;
}

export async function sourcesCommand(args: string[], config: Config, io: Io): Promise<number> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      'api-url': { type: 'string' },
      'api-key': { type: 'string' },
      sitemap: { type: 'string' },
      confluence: { type: 'string' },
      namespace: { type: 'string' },
      name: { type: 'string' },
      every: { type: 'string' },
      prefix: { type: 'string' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'max-pages': { type: 'string' },
      depth: { type: 'string' },
      'no-wait': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const apiUrl = values['api-url'] ?? `http://127.0.0.1:${config.server.port}`;
  const apiKey = values['api-key'];
  if (!apiKey) throw new CliError('--api-key is required: an admin key (create one with `kb keys create --label ops --admin`)');
  const integer = (name: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text)) throw new CliError(`--${name} must be a whole number`);
    return Number(text);
  };

  switch (action) {
    case 'add': {
      const [url] = positionals;
      const spaceKey = values.confluence;
      if (spaceKey !== undefined && url !== undefined) throw new CliError('kb sources add takes a site URL or --confluence SPACE_KEY, not both');
      if (!url && spaceKey === undefined) throw new CliError(`kb sources add needs the site's URL (or --confluence SPACE_KEY)\n\n${SOURCES_USAGE}`);
      let source: { kind: string; name: string; namespace: string; settings: Record<string, unknown> };
      if (spaceKey !== undefined) {
        source = { kind: 'confluence', name: values.name ?? `Confluence ${spaceKey}`, namespace: values.namespace ?? 'wiki', settings: { spaceKey } };
      } else {
        const isSitemap = /\.xml(\.gz)?$/i.test(new URL(url!, 'http://x').pathname);
        const settings = {
          ...(isSitemap ? { sitemapUrl: url } : { startUrl: url }),
          ...(values.sitemap ? { sitemapUrl: values.sitemap } : {}),
          ...(values.prefix ? { pathPrefix: values.prefix } : {}),
          ...(values.include ? { include: values.include } : {}),
          ...(values.exclude ? { exclude: values.exclude } : {}),
          ...(values['max-pages'] ? { maxPages: integer('max-pages', values['max-pages']) } : {}),
          ...(values.depth ? { maxDepth: integer('depth', values.depth) } : {}),
        };
        source = { kind: 'website', name: values.name ?? new URL(url!).host, namespace: values.namespace ?? 'user_docs', settings };
      }
      const created = (await call(apiUrl, apiKey, '/api/v1/sources', {
        method: 'POST',
        json: { ...source, ...(values.every !== undefined ? { scheduleMinutes: integer('every', values.every) } : {}) },
      })) as SourceBody;
      if (!values.json) io.out(`Added ${created.id} (${created.name})\n`);
      const final = values['no-wait'] ? created : await follow(apiUrl, apiKey, created.id, null, values.json ? { ...io, tty: false, out: () => undefined } : io);
      if (values.json) io.out(`${JSON.stringify(final)}\n`);
      return final.lastSync?.status === 'failed' ? 1 : 0;
    }
    case 'list': {
      const page = (await call(apiUrl, apiKey, '/api/v1/sources?limit=100')) as { sources: SourceBody[] };
      if (values.json) io.out(`${JSON.stringify(page.sources)}\n`);
      else if (page.sources.length === 0) io.out('No sources yet: add one with `kb sources add <url>`.\n');
      else for (const source of page.sources) io.out(`${summary(source)}\n`);
      return 0;
    }
    case 'sync': {
      const [id] = positionals;
      if (!id) throw new CliError(`kb sources sync needs a source id (see \`kb sources list\`)\n\n${SOURCES_USAGE}`);
      const accepted = (await call(apiUrl, apiKey, `/api/v1/sources/${encodeURIComponent(id)}/sync`, { method: 'POST' })) as { jobId: string };
      if (values['no-wait']) {
        io.out(values.json ? `${JSON.stringify(accepted)}\n` : `Sync queued (job ${accepted.jobId})\n`);
        return 0;
      }
      const final = await follow(apiUrl, apiKey, id, accepted.jobId, values.json ? { ...io, tty: false, out: () => undefined } : io);
      if (values.json) io.out(`${JSON.stringify(final)}\n`);
      else if (final.lastSync?.error) io.err(`${final.lastSync.error}\n`);
      return final.lastSync?.status === 'failed' ? 1 : 0;
    }
    default:
      io.err(`${SOURCES_USAGE}\n`);
      return 1;
  }
}
