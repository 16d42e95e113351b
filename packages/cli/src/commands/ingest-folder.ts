import { readdir, readFile } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { createHash } from 'node:crypto';
import { findFrontMatter, parseFrontMatter, splitDocument, wellFormedText } from '@kb/content';
import { createLogger, IngestionService, type IngestDocumentInput } from '@kb/core';
import { CliError, openStore } from '../store.ts';

/** Bulk-load when at least 50 documents change and they are a quarter or more of the store. */
async function shouldBulkLoad(service: IngestionService, dir: string, files: string[]): Promise<boolean> {
  if (files.length < 50) return false;
  const docs = await Promise.all(files.map(async (file) => documentFor(dir, file, await readFile(file, 'utf8'))));
  const changed = await service.countChanged(docs);
  const stored = await service.countDocuments();
  return changed >= 50 && changed >= 0.25 * (stored + changed);
}

export const INGEST_FOLDER_USAGE = `Usage: kb ingest-folder <directory> [--dry-run] [--limit=N] [--concurrency=N] [--api-url URL --api-key KEY]

Ingests every Markdown file (.md, .markdown) under the directory. A file named technical.md goes
to the tech_docs namespace, every other file to user_docs. The slug is the file's path relative
to the directory; the title is the front matter's title, else the first heading, else the file name.
Progress: + ingested, . unchanged (skipped), ! failed (the reason goes to stderr).
  --dry-run        parse and report, write nothing
  --limit=N        stop after N files
  --api-url URL    send the documents to a running server instead of the configured store
  --api-key KEY    the API key for --api-url`;

const MARKDOWN = new Set(['.md', '.markdown']);

async function listMarkdown(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && MARKDOWN.has(extname(e.name).toLowerCase()))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Longest title and slug the API takes; the local store is held to the same, so both modes agree. */
const MAX_TITLE_CHARS = 1000;
const MAX_SLUG_CHARS = 1000;

/**
 * Title: front matter `title`, else the first ATX heading with text, else the file name. The
 * front matter is read as the pipeline reads it (a leading byte-order mark and CRLF line endings
 * allowed; YAML it ignores is ignored here too).
 */
export function titleOf(content: string, file: string): string {
  const source = content.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const front = findFrontMatter(source);
  const title = parseFrontMatter(front)['title'];
  if (typeof title === 'string' && title.trim()) return title.trim();
  const heading = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(front ? source.slice(front.end) : source);
  const text = heading?.[1]!.replace(/[*_`]/g, '').trim();
  return text || basename(file, extname(file));
}

/** `text` cut to `max` characters, not inside a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, end);
}

/**
 * The document for a file, the same in both modes: text the store cannot hold (NUL, unpaired
 * surrogates) as U+FFFD, the title cut to 1,000 characters, and a path longer than 1,000
 * characters shortened to its start and a hash of the whole.
 */
export function documentFor(root: string, file: string, content: string): IngestDocumentInput {
  const path = wellFormedText(relative(root, file).split(sep).join('/'));
  const slug =
    path.length <= MAX_SLUG_CHARS ? path : `${cut(path, MAX_SLUG_CHARS - 17)}#${createHash('sha256').update(path).digest('hex').slice(0, 16)}`;
  return {
    namespace: basename(file).toLowerCase() === 'technical.md' ? 'tech_docs' : 'user_docs',
    title: cut(wellFormedText(titleOf(content, file)), MAX_TITLE_CHARS),
    slug,
    content: wellFormedText(content),
  };
}

type Outcome = { mark: '+' | '.' | '!'; error?: string };


async function postDocument(apiUrl: string, apiKey: string, doc: IngestDocumentInput): Promise<Outcome> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(new URL('/api/v1/ingest/md', apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(doc),
    });
    if (res.status === 429 && attempt < 5) {
      const wait = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, Math.min(60, Math.max(1, wait)) * 1000));
      continue;
    }
    const body = (await res.json().catch(() => ({}))) as {
      skipped?: boolean;
      message?: string;
      issues?: Array<{ path?: Array<string | number>; message?: string }>;
    };
    if (!res.ok) {
      const issues = (body.issues ?? []).map((issue) => `${(issue.path ?? []).join('.') || 'input'}: ${issue.message ?? 'invalid'}`);
      return { mark: '!', error: `HTTP ${res.status}: ${body.message ?? res.statusText}${issues.length > 0 ? ` (${issues.join('; ')})` : ''}` };
    }
    return { mark: body.skipped ? '.' : '+' };
  }
}

export async function ingestFolderCommand(
  args: string[],
  config: Config,
  io: { out: (s: string) => void; err: (s: string) => void },
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'dry-run': { type: 'boolean', default: false },
      limit: { type: 'string' },
      concurrency: { type: 'string' },
      'api-url': { type: 'string' },
      'api-key': { type: 'string' },
    },
  });
  const dir = positionals[0];
  if (!dir) throw new CliError(INGEST_FOLDER_USAGE);
  const limit = values.limit === undefined ? Infinity : Number(values.limit);
  if (!(limit >= 1) || !Number.isInteger(limit === Infinity ? 1 : limit)) throw new CliError('--limit must be a whole number of files, at least 1');
  const concurrency = values.concurrency === undefined ? 4 : Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) throw new CliError('--concurrency must be 1 to 64');
  const apiUrl = values['api-url'];
  const apiKey = values['api-key'];
  if (apiUrl && !apiKey) throw new CliError('--api-url needs --api-key');

  let files: string[];
  try {
    files = (await listMarkdown(dir)).slice(0, limit);
  } catch (error) {
    throw new CliError(`Cannot read ${dir}: ${(error as Error).message}`);
  }

  const started = performance.now();
  const counts = { ingested: 0, skipped: 0, failed: 0, chunks: 0 };
  // A batch of documents in, one outcome per document out.
  let ingestBatch: (docs: IngestDocumentInput[]) => Promise<Outcome[]>;
  let close = async () => {};

  if (values['dry-run']) {
    ingestBatch = async (docs) =>
      docs.map((doc) => {
        counts.chunks += splitDocument({ title: doc.title, content: doc.content }).children.length;
        return { mark: '+' as const };
      });
  } else if (apiUrl) {
    ingestBatch = (docs) => Promise.all(docs.map((doc) => postDocument(apiUrl, apiKey!, doc)));
  } else {
    const logger = createLogger({ level: 'silent' });
    const store = await openStore(config, {
      logger,
      checkEmbedding: true,
      whenLocked: 'To ingest while the server runs, send the files through it: kb ingest-folder <dir> --api-url <server URL> --api-key <key>.',
    });
    const service = new IngestionService(store.database, store.embedder, logger, { serving: false });
    close = () => store.close();
    // When this process owns an embedded store, nobody searches it during the load: a load that
    // is large next to the store builds the vector index once at the end instead of growing it
    // document by document (several times faster). A shared store (PostgreSQL) keeps its index.
    // If the load dies, the next start of the store builds the index again.
    const load = service.bulkLoad();
    if (await load.setIndexAside(() => shouldBulkLoad(service, dir, files))) {
      close = async () => {
        const t = performance.now();
        await load.end();
        if (line % 80 !== 0) io.out('\n');
        line = 0;
        io.err(`vector index built in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
        await store.close();
      };
    }
    ingestBatch = async (docs) =>
      (await service.ingestMany(docs)).map((result) => {
        if (result instanceof Error) return { mark: '!' as const, error: result.message };
        counts.chunks += result.chunks;
        return { mark: result.skipped ? ('.' as const) : ('+' as const) };
      });
  }

  const BATCH = 32;
  let next = 0;
  let line = 0;
  const record = (file: string, outcome: Outcome) => {
    if (outcome.mark === '+') counts.ingested++;
    else if (outcome.mark === '.') counts.skipped++;
    else {
      counts.failed++;
      io.err(`\n${file}: ${outcome.error}\n`);
    }
    io.out(outcome.mark);
    if (++line % 80 === 0) io.out('\n');
  };
  const worker = async () => {
    while (next < files.length) {
      const batch = files.slice(next, next + BATCH);
      next += batch.length;
      const docs: Array<{ file: string; doc: IngestDocumentInput }> = [];
      for (const file of batch) {
        try {
          docs.push({ file, doc: documentFor(dir, file, await readFile(file, 'utf8')) });
        } catch (error) {
          record(file, { mark: '!', error: (error as Error).message });
        }
      }
      let outcomes: Outcome[];
      try {
        outcomes = await ingestBatch(docs.map((d) => d.doc));
      } catch (error) {
        outcomes = docs.map(() => ({ mark: '!' as const, error: (error as Error).message }));
      }
      outcomes.forEach((outcome, i) => record(docs[i]!.file, outcome));
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, Math.ceil(files.length / BATCH))) }, worker));
  } finally {
    await close();
  }
  const seconds = (performance.now() - started) / 1000;
  const rate = files.length / Math.max(seconds, 1e-6);
  io.out(
    `${line % 80 === 0 ? '' : '\n'}${files.length} files: ${counts.ingested} ${values['dry-run'] ? 'parsed' : 'ingested'}, ${counts.skipped} skipped, ${counts.failed} failed` +
      `${apiUrl ? '' : `, ${counts.chunks} chunks`} in ${seconds.toFixed(1)} s (${rate.toFixed(1)} files/s)${values['dry-run'] ? ' [dry run: nothing written]' : ''}\n`,
  );
  return counts.failed > 0 ? 1 : 0;
}
