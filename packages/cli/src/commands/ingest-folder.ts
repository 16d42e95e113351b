import { readFileSync, realpathSync, statSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { createHash } from 'node:crypto';
import {
  convertFileOffThread,
  FileConversionError,
  findFrontMatter,
  includeTargets,
  parseFrontMatter,
  resolveSiteDirectives,
  splitDocument,
  stopWorkerPool,
  wellFormedText,
  type IncludeProblem,
  type LoadedInclude,
} from '@kb/content';
import { createLogger, DocumentsService, FileIngestion, IngestionService, type IngestDocumentInput, type IngestFileInput } from '@kb/core';
import { CliError, openStore } from '../store.ts';
import { aliasUrls, fileFilter, pageUrl, validTemplate, type UrlOrigin } from './folder-urls.ts';

/** Bulk-load when at least 50 documents change and they are a quarter or more of the store. */
async function shouldBulkLoad(
  service: IngestionService,
  dir: string,
  files: string[],
  options: DocumentOptions,
): Promise<boolean> {
  if (files.length < 50) return false;
  // The documents exactly as the run makes them (a link from --base-url is part of the hash).
  const docs = await Promise.all(
    files.filter((file) => !isConverted(file)).map(async (file) => {
      const { urlOrigin: _origin, directives: _directives, ...doc } = documentFor(dir, file, await readFile(file, 'utf8'), options);
      return doc;
    }),
  );
  const changed = await service.countChanged(docs);
  const stored = await service.countDocuments();
  return changed >= 50 && changed >= 0.25 * (stored + changed);
}

export const INGEST_FOLDER_USAGE = `Usage: kb ingest-folder <directory> [--dry-run] [--prune] [--base-url URL [--strip-prefix DIR] [--url-template T] [--url-case lower|keep]]
         [--keep-directives] [--include GLOB]... [--exclude GLOB]... [--limit=N] [--concurrency=N] [--api-url URL --api-key KEY]

Ingests every Markdown file (.md, .markdown, .mdx), PDF (.pdf) and Word file (.docx) under the
directory. A file named technical.md goes to the tech_docs namespace, every other file to
user_docs. The slug is the file's path relative to the directory; the title is the front matter's
title, else the first heading, else the file name (a PDF's or Word file's own title, else its name).
Each document records the folder it came from.
Progress: + ingested, . unchanged (skipped), ! failed (the reason goes to stderr), - deleted.
  --dry-run        parse and report, write nothing (with --prune: list what would be deleted)
  --prune          also delete the documents an earlier run over this folder ingested whose
                   files are gone
  --base-url URL   a document's link: URL joined with the file's path (front matter url wins,
                   site-relative or absolute)
  --strip-prefix DIR   a leading folder the site does not serve (content/en)
  --url-template T the page's address under --base-url, from {dir}, {name} (the file name
                   without extension; empty for index.md and _index.md, which stand for their
                   folder; front matter slug replaces it) and {path}: e.g. '{dir}/{name}/'
  --url-case C     lower: the address made from the file's path is lower-cased, as site generators
                   publish it (the default with --url-template); keep: as the files are named
                   (the default without)
  --keep-directives  store Hugo shortcodes and MDX syntax as written; by default they are
                   resolved: includes expanded (targets in the directory), code-toggle and
                   highlight made code blocks, paired shortcodes and JSX components replaced by
                   their content, the rest and MDX import/export lines left out
  --include GLOB   read only files matching a pattern (repeatable; .gitignore syntax, against
                   the path relative to the directory)
  --exclude GLOB   leave out files matching a pattern (repeatable); a .kbignore file at the
                   top of the directory lists more, one pattern a line
  --limit=N        stop after N files (not with --prune)
  --api-url URL    send the documents to a running server instead of the configured store
  --api-key KEY    the API key for --api-url`;

const MARKDOWN = new Set(['.md', '.markdown', '.mdx']);
/** Files converted to Markdown as POST /ingest/file converts them. */
const CONVERTED = new Set(['.pdf', '.docx']);

const isConverted = (file: string): boolean => CONVERTED.has(extname(file).toLowerCase());

async function listMarkdown(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && (MARKDOWN.has(extname(e.name).toLowerCase()) || isConverted(e.name)))
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

/** A file's path relative to the folder, with `/` separators. */
function relativePath(root: string, file: string): string {
  return wellFormedText(relative(root, file).split(sep).join('/'));
}

/** The namespace and slug of a file's document (its key), read from its path alone. */
export function documentKey(root: string, file: string): { namespace: 'tech_docs' | 'user_docs'; slug: string } {
  const path = relativePath(root, file);
  const slug =
    path.length <= MAX_SLUG_CHARS ? path : `${cut(path, MAX_SLUG_CHARS - 17)}#${createHash('sha256').update(path).digest('hex').slice(0, 16)}`;
  return { namespace: basename(file).toLowerCase() === 'technical.md' ? 'tech_docs' : 'user_docs', slug };
}

/** `base` joined with a relative path, each segment percent-encoded. */
export function joinUrl(base: string, path: string): string {
  const root = base.endsWith('/') ? base : `${base}/`;
  return new URL(path.split('/').map(encodeURIComponent).join('/'), root).toString();
}

export interface DocumentOptions {
  baseUrl?: string;
  stripPrefix?: string;
  urlTemplate?: string;
  /** Lower-case links made from file paths (default: with a URL template). */
  lowerCaseUrls?: boolean;
  /** Store shortcodes and MDX syntax as written instead of resolving them. */
  keepDirectives?: boolean;
  folder?: string;
  /** Files of the folder that its pages include (paths relative to it: see {@link includedFiles}). */
  fragments?: ReadonlySet<string>;
}

/** Largest file an include may bring in (the page's own size is not limited here). */
const MAX_INCLUDE_BYTES = 1_000_000;

/**
 * The include loader of a folder: the target is looked up from the including file's folder up to
 * the top of `root` (Hugo writes `/_common/x.md` for `content/en/_common/x.md`), and only a file
 * that really is inside `root` (symbolic links resolved) is read.
 */
function folderIncludes(root: string): (target: string, from: string) => LoadedInclude | undefined {
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    realRoot = resolve(root);
  }
  const inside = (path: string): boolean => {
    const rel = relative(realRoot, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  return (target, from) => {
    const clean = target.trim().replace(/^\/+/, '');
    if (clean === '' || clean.includes('\0')) return undefined;
    for (let dir = dirname(join(root, from)); ; dir = dirname(dir)) {
      const candidate = resolve(dir, clean);
      try {
        const real = realpathSync(candidate);
        if (inside(real) && statSync(real).isFile() && statSync(real).size <= MAX_INCLUDE_BYTES) {
          return { path: relativePath(realRoot, real), text: wellFormedText(readFileSync(real, 'utf8')) };
        }
      } catch {
        // Not there: look one folder up.
      }
      if (!inside(dir)) return undefined;
    }
  };
}

/**
 * The files that the pages among `files` include (paths relative to `root`, as the includes'
 * fragments are named): such a file stored as a document of its own is marked as that fragment,
 * as its copies are. Read without following includes further (an include inside one is among
 * `files` when the fragment itself is).
 */
export async function includedFiles(root: string, files: readonly string[]): Promise<Set<string>> {
  const load = folderIncludes(root);
  const included = new Set<string>();
  for (const file of files) {
    if (isConverted(file)) continue;
    const from = relativePath(root, file);
    for (const target of includeTargets(await readFile(file, 'utf8'))) {
      const loaded = load(target, from);
      if (loaded && loaded.path !== from) included.add(loaded.path);
    }
  }
  return included;
}

/**
 * The document for a file, the same in both modes: text the store cannot hold (NUL, unpaired
 * surrogates) as U+FFFD, the title cut to 1,000 characters, and a path longer than 1,000
 * characters shortened to its start and a hash of the whole. With `baseUrl`, the file's link (see
 * folder-urls.ts; an absolute front matter `url` is left to the pipeline, which reads it) and its
 * front matter `aliases` as links; with `folder`, the document records the folder it came from.
 */
export function documentFor(
  root: string,
  file: string,
  content: string,
  options: DocumentOptions = {},
): IngestDocumentInput & { urlOrigin?: UrlOrigin; directives?: DirectiveCounts } {
  let text = wellFormedText(content);
  let directives: DirectiveCounts | undefined;
  if (!options.keepDirectives) {
    const path = relativePath(root, file);
    const resolved = resolveSiteDirectives(text, {
      path,
      mdx: extname(file).toLowerCase() === '.mdx',
      load: folderIncludes(root),
      fragment: options.fragments?.has(path) ?? false,
    });
    text = wellFormedText(resolved.text);
    directives = { shortcodes: resolved.shortcodes, includes: resolved.includes, problems: resolved.problems };
  }
  const metadata: Record<string, unknown> = {};
  let urlOrigin: UrlOrigin | undefined;
  if (options.baseUrl !== undefined) {
    const source = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
    const front = parseFrontMatter(findFrontMatter(source));
    const link = pageUrl(relativePath(root, file), front, {
      baseUrl: options.baseUrl,
      ...(options.stripPrefix !== undefined ? { stripPrefix: options.stripPrefix } : {}),
      ...(options.urlTemplate !== undefined ? { template: options.urlTemplate } : {}),
      lowerCase: options.lowerCaseUrls ?? options.urlTemplate !== undefined,
    });
    if (link) {
      urlOrigin = link.origin;
      if (!(link.origin === 'front-matter' && link.url === String(front['url']).trim())) metadata['url'] = link.url;
    }
    const aliases = aliasUrls(front, options.baseUrl);
    if (aliases.length > 0) metadata['aliases'] = aliases;
  }
  return {
    ...documentKey(root, file),
    title: cut(wellFormedText(titleOf(text, file)), MAX_TITLE_CHARS),
    content: text,
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(options.folder !== undefined ? { folder: options.folder } : {}),
    ...(urlOrigin !== undefined ? { urlOrigin } : {}),
    ...(directives !== undefined ? { directives } : {}),
  };
}

export interface DirectiveCounts {
  shortcodes: number;
  includes: number;
  problems: IncludeProblem[];
}

type Outcome = { mark: '+' | '.' | '!'; error?: string };

const documentKeyText = (key: { namespace: string; slug: string }) => `${key.namespace}\u0000${key.slug}`;

interface ApiBody {
  message?: string;
  issues?: Array<{ path?: Array<string | number>; message?: string }>;
}

/** A call to the server's REST API, waiting out rate limits (up to 5 times, as Retry-After says). */
async function callApi(apiUrl: string, apiKey: string, path: string, init: { method: string; json?: unknown }): Promise<{ res: Response; body: unknown }> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(new URL(path, apiUrl), {
      method: init.method,
      headers: { authorization: `Bearer ${apiKey}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    });
    if (res.status === 429 && attempt < 5) {
      const wait = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, Math.min(60, Math.max(1, wait)) * 1000));
      continue;
    }
    return { res, body: await res.json().catch(() => ({})) };
  }
}

/** An API failure as one line: status, message and the invalid fields. */
function apiFailure(res: Response, body: ApiBody): string {
  const issues = (body.issues ?? []).map((issue) => `${(issue.path ?? []).join('.') || 'input'}: ${issue.message ?? 'invalid'}`);
  return `HTTP ${res.status}: ${body.message ?? res.statusText}${issues.length > 0 ? ` (${issues.join('; ')})` : ''}`;
}

async function postDocument(apiUrl: string, apiKey: string, doc: IngestDocumentInput): Promise<Outcome> {
  const { res, body } = await callApi(apiUrl, apiKey, '/api/v1/ingest/md', { method: 'POST', json: doc });
  if (!res.ok) return { mark: '!', error: apiFailure(res, body as ApiBody) };
  return { mark: (body as { skipped?: boolean }).skipped ? '.' : '+' };
}

/** A PDF or Word file for POST /ingest/file (or the file ingestion of the store): named, keyed by its path, linked under --base-url. */
function fileFor(root: string, file: string, bytes: Uint8Array, options: DocumentOptions): IngestFileInput {
  const path = relativePath(root, file);
  let url: string | undefined;
  if (options.baseUrl !== undefined) {
    const prefix = options.stripPrefix?.replace(/^\/+|\/+$/g, '');
    url = joinUrl(options.baseUrl, prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : path);
  }
  return {
    namespace: documentKey(root, file).namespace,
    bytes,
    filename: basename(file),
    slug: documentKey(root, file).slug,
    ...(url !== undefined ? { url } : {}),
    ...(options.folder !== undefined ? { folder: options.folder } : {}),
  };
}

async function postFile(apiUrl: string, apiKey: string, input: IngestFileInput): Promise<Outcome> {
  const query = new URLSearchParams({ namespace: input.namespace, filename: input.filename!, slug: input.slug! });
  if (input.url !== undefined) query.set('url', input.url);
  if (input.folder !== undefined) query.set('folder', input.folder);
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(new URL(`/api/v1/ingest/file?${query}`, apiUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/octet-stream' },
      body: input.bytes,
    });
    if (res.status === 429 && attempt < 5) {
      const wait = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, Math.min(60, Math.max(1, wait)) * 1000));
      continue;
    }
    const body = (await res.json().catch(() => ({}))) as ApiBody & { skipped?: boolean };
    if (!res.ok) return { mark: '!', error: apiFailure(res, body) };
    return { mark: body.skipped ? '.' : '+' };
  }
}

interface StoredDocument {
  id: string;
  namespace: string;
  slug: string;
}

/** Where `--prune` finds the documents of a folder and deletes them: the store or a server. */
interface Pruner {
  /** Every document an earlier run over the folder recorded. */
  recorded(): Promise<StoredDocument[]>;
  /** Deletes one; false when it was gone already. Throws when it cannot be deleted. */
  remove(id: string): Promise<boolean>;
}

function apiPruner(apiUrl: string, apiKey: string, folder: string): Pruner {
  return {
    async recorded() {
      const found: StoredDocument[] = [];
      for (;;) {
        const query = new URLSearchParams({ folder, limit: '200', offset: String(found.length) });
        const { res, body } = await callApi(apiUrl, apiKey, `/api/v1/documents?${query}`, { method: 'GET' });
        if (!res.ok) {
          const hint = res.status === 403 ? ' (--prune through the API needs an admin key)' : '';
          throw new CliError(`Cannot list the folder's documents: ${apiFailure(res, body as ApiBody)}${hint}`);
        }
        const page = body as { documents: StoredDocument[]; total: number };
        found.push(...page.documents.map(({ id, namespace, slug }) => ({ id, namespace, slug })));
        if (page.documents.length === 0 || found.length >= page.total) return found;
      }
    },
    async remove(id) {
      const query = new URLSearchParams({ folder });
      const { res, body } = await callApi(apiUrl, apiKey, `/api/v1/documents/${encodeURIComponent(id)}?${query}`, { method: 'DELETE' });
      if (res.status === 404) return false;
      if (!res.ok) throw new Error(apiFailure(res, body as ApiBody));
      return true;
    },
  };
}

function storePruner(documents: DocumentsService, folder: string): Pruner {
  return {
    recorded: () => documents.inFolder(folder),
    async remove(id) {
      try {
        await documents.delete(id, { folder });
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === 'NOT_FOUND') return false;
        throw error;
      }
    },
  };
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
      prune: { type: 'boolean', default: false },
      'base-url': { type: 'string' },
      'strip-prefix': { type: 'string' },
      'url-template': { type: 'string' },
      'url-case': { type: 'string' },
      'keep-directives': { type: 'boolean', default: false },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
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
  const prune = values.prune;
  // A limited run has not seen every file: the ones it left out would look deleted.
  if (prune && values.limit !== undefined) throw new CliError('--prune reads the whole folder: it cannot be combined with --limit');
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !(/^https?:\/\//i.test(baseUrl) && URL.canParse(baseUrl))) {
    throw new CliError('--base-url must be an http or https URL');
  }
  const stripPrefix = values['strip-prefix'];
  const urlTemplate = values['url-template'];
  if ((stripPrefix !== undefined || urlTemplate !== undefined) && baseUrl === undefined) {
    throw new CliError('--strip-prefix and --url-template shape the links of --base-url: give --base-url too');
  }
  const urlCase = values['url-case'];
  if (urlCase !== undefined && urlCase !== 'lower' && urlCase !== 'keep') throw new CliError('--url-case must be lower or keep');
  if (urlCase !== undefined && baseUrl === undefined) throw new CliError('--url-case shapes the links of --base-url: give --base-url too');
  if (urlTemplate !== undefined && !validTemplate(urlTemplate)) {
    throw new CliError('--url-template knows {dir}, {name} and {path} only (e.g. "{dir}/{name}/")');
  }

  let files: string[];
  let folder: string;
  try {
    // The folder's identity across runs: its real absolute path.
    folder = await realpath(dir);
    const ignoreFile = await readFile(join(folder, '.kbignore'), 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    const wanted = fileFilter({ include: values.include ?? [], exclude: values.exclude ?? [], ...(ignoreFile !== undefined ? { ignoreFile } : {}) });
    files = (await listMarkdown(folder)).filter((file) => wanted(relativePath(folder, file))).slice(0, limit);
  } catch (error) {
    throw new CliError(`Cannot read ${dir}: ${(error as Error).message}`);
  }
  const options: DocumentOptions = {
    folder,
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(stripPrefix !== undefined ? { stripPrefix } : {}),
    ...(urlTemplate !== undefined ? { urlTemplate } : {}),
    ...(urlCase !== undefined ? { lowerCaseUrls: urlCase === 'lower' } : {}),
    keepDirectives: values['keep-directives'],
  };
  if (!options.keepDirectives) {
    try {
      options.fragments = await includedFiles(folder, files);
    } catch (error) {
      throw new CliError(`Cannot read ${dir}: ${(error as Error).message}`);
    }
  }
  // Shortcodes and MDX syntax resolved, and includes that could not be expanded (said in the summary).
  const directiveCounts = { shortcodes: 0, includes: 0, problems: [] as Array<IncludeProblem> };
  // Links that are only the base URL joined with the file's path: said once in the summary.
  const pathLinks: string[] = [];

  const started = performance.now();
  const counts = { ingested: 0, skipped: 0, failed: 0, chunks: 0, deleted: 0 };
  // A batch of documents in, one outcome per document out.
  let ingestBatch: (docs: IngestDocumentInput[]) => Promise<Outcome[]>;
  // A PDF or Word file in, its outcome out.
  let ingestFile: (input: IngestFileInput) => Promise<Outcome>;
  let close = async () => {};
  let pruner: Pruner | undefined;

  if (values['dry-run']) {
    ingestBatch = async (docs) =>
      docs.map((doc) => {
        counts.chunks += splitDocument({ title: doc.title, content: doc.content }).children.length;
        return { mark: '+' as const };
      });
    ingestFile = async (input) => {
      try {
        const converted = await convertFileOffThread({ bytes: input.bytes, filename: input.filename });
        counts.chunks += splitDocument({ title: converted.title ?? input.filename!, content: converted.markdown }).children.length;
        return { mark: '+' };
      } catch (error) {
        if (error instanceof FileConversionError) return { mark: '!', error: error.message };
        throw error;
      }
    };
    if (prune && apiUrl) pruner = apiPruner(apiUrl, apiKey!, folder);
    else if (prune) {
      // Only read: what would be deleted.
      const logger = createLogger({ level: 'silent' });
      const store = await openStore(config, { logger });
      pruner = storePruner(new DocumentsService(store.database, logger), folder);
      close = () => store.close();
    }
  } else if (apiUrl) {
    ingestBatch = (docs) => Promise.all(docs.map((doc) => postDocument(apiUrl, apiKey!, doc)));
    ingestFile = (input) => postFile(apiUrl, apiKey!, input);
    if (prune) pruner = apiPruner(apiUrl, apiKey!, folder);
  } else {
    const logger = createLogger({ level: 'silent' });
    const store = await openStore(config, {
      logger,
      checkEmbedding: true,
      whenLocked: 'To ingest while the server runs, send the files through it: kb ingest-folder <dir> --api-url <server URL> --api-key <key>.',
    });
    const service = new IngestionService(store.database, store.embedder, logger, { serving: false });
    if (prune) pruner = storePruner(new DocumentsService(store.database, logger), folder);
    close = () => store.close();
    // When this process owns an embedded store, nobody searches it during the load: a load that
    // is large next to the store builds the vector index once at the end instead of growing it
    // document by document (several times faster). A shared store (PostgreSQL) keeps its index.
    // If the load dies, the next start of the store builds the index again.
    const load = service.bulkLoad();
    if (await load.setIndexAside(() => shouldBulkLoad(service, folder, files, options))) {
      close = async () => {
        const t = performance.now();
        await load.end();
        if (line % 80 !== 0) io.out('\n');
        line = 0;
        io.err(`vector index built in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
        await store.close();
      };
    }
    const fileIngestion = new FileIngestion(service, Number.MAX_SAFE_INTEGER, logger);
    ingestFile = async (input) => {
      try {
        const result = await fileIngestion.ingest(input);
        counts.chunks += result.chunks;
        return { mark: result.skipped ? '.' : '+' };
      } catch (error) {
        return { mark: '!', error: (error as Error).message };
      }
    };
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
        if (isConverted(file)) {
          try {
            record(file, await ingestFile(fileFor(folder, file, new Uint8Array(await readFile(file)), options)));
          } catch (error) {
            record(file, { mark: '!', error: (error as Error).message });
          }
          continue;
        }
        try {
          const { urlOrigin, directives, ...doc } = documentFor(folder, file, await readFile(file, 'utf8'), options);
          if (urlOrigin === 'path') pathLinks.push(String(doc.metadata?.['url']));
          if (directives) {
            directiveCounts.shortcodes += directives.shortcodes;
            directiveCounts.includes += directives.includes;
            directiveCounts.problems.push(...directives.problems);
          }
          docs.push({ file, doc });
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
  const wouldDelete: StoredDocument[] = [];
  try {
    // Read before ingesting, so that a key that may not list documents fails before any write.
    // Documents this run adds are all files present, never to be deleted.
    const recorded = pruner ? await pruner.recorded() : [];
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, Math.ceil(files.length / BATCH))) }, worker));
    if (pruner) {
      // Every file still there keeps its document, whether or not it was ingested this time.
      const present = new Set(files.map((file) => documentKeyText(documentKey(folder, file))));
      const gone = recorded
        .filter((doc) => !present.has(documentKeyText(doc)))
        .sort((a, b) => (`${a.namespace}/${a.slug}` < `${b.namespace}/${b.slug}` ? -1 : 1));
      if (values['dry-run']) wouldDelete.push(...gone);
      else {
        for (const doc of gone) {
          try {
            if (!(await pruner.remove(doc.id))) continue;
            counts.deleted++;
            io.out('-');
            if (++line % 80 === 0) io.out('\n');
          } catch (error) {
            record(`${doc.namespace}/${doc.slug}`, { mark: '!', error: `not deleted: ${(error as Error).message}` });
          }
        }
      }
    }
  } finally {
    await close();
    await stopWorkerPool();
  }
  if (wouldDelete.length > 0) {
    if (line % 80 !== 0) io.out('\n');
    line = 0;
    for (const doc of wouldDelete) io.out(`- ${doc.namespace}/${doc.slug}\n`);
  }
  const pruned = !prune ? '' : values['dry-run'] ? `, ${wouldDelete.length} to delete` : `, ${counts.deleted} deleted`;
  const seconds = (performance.now() - started) / 1000;
  const rate = files.length / Math.max(seconds, 1e-6);
  io.out(
    `${line % 80 === 0 ? '' : '\n'}${files.length} files: ${counts.ingested} ${values['dry-run'] ? 'parsed' : 'ingested'}, ${counts.skipped} skipped, ${counts.failed} failed${pruned}` +
      `${apiUrl ? '' : `, ${counts.chunks} chunks`} in ${seconds.toFixed(1)} s (${rate.toFixed(1)} files/s)${values['dry-run'] ? ' [dry run: nothing written]' : ''}\n`,
  );
  if (pathLinks.length > 0 && urlTemplate === undefined) {
    io.out(
      `links: ${pathLinks.length} of ${files.length} are --base-url joined with the file's path (${pathLinks.sort()[0]}); ` +
        `if the site serves pages elsewhere, give --url-template (and --strip-prefix), or a url in front matter\n`,
    );
  }
  if (directiveCounts.shortcodes > 0) {
    const { problems } = directiveCounts;
    const first = problems.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0))[0];
    io.out(
      `directives: ${directiveCounts.shortcodes} shortcodes resolved, ${directiveCounts.includes} includes expanded` +
        (first ? `; ${problems.length} left out (${first.from}: "${first.target}", ${first.reason})` : '') +
        '\n',
    );
  }
  return counts.failed > 0 ? 1 : 0;
}
