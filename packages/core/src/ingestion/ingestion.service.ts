import {
  CHUNKER_VERSION,
  embeddingText,
  illFormedTextPath,
  isIllFormedText,
  runTask,
  splitDocument,
  wellFormedText,
  type SplitDocument,
} from '@kb/content';
import { inSpan } from '../telemetry/tracing.ts';
import { metrics } from '../telemetry/metrics.ts';
import type { BulkLoad, Database } from '@kb/db';
import { LocalEmbedder } from '../embeddings/local.ts';
import type { Embedder } from '../embeddings/types.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { assertInScope, type Namespace, type NamespaceScope } from '../namespaces.ts';
import { contentHash } from './content-hash.ts';
import { DocumentsRepository, type DocumentVersion, type StoredVersion } from './documents.repository.ts';

/** A document's canonical link: its metadata's `url` when that is an http(s) URL. */
export function documentUrl(metadata: Record<string, unknown>): string | null {
  const url = metadata['url'];
  if (typeof url !== 'string' || !/^https?:\/\/\S+$/i.test(url)) return null;
  return URL.canParse(url) ? url : null;
}

export interface IngestDocumentInput {
  namespace: Namespace;
  title: string;
  /** Deduplication key within the namespace; defaults to the title. */
  slug?: string;
  /** Markdown; YAML front matter becomes metadata. */
  content: string;
  metadata?: Record<string, unknown>;
  /**
   * The folder (absolute path) a `kb ingest-folder` run read the document from; recorded even when
   * the document is unchanged. Absent leaves the recorded folder as it is.
   */
  folder?: string;
}

/**
 * A document whose Markdown is derived from another format (a wiki page's storage XHTML). It is
 * recognised as unchanged from a digest of its source, so an unchanged document is never
 * converted; `content` is called only for new and changed documents.
 */
export interface DerivedDocumentInput extends Omit<IngestDocumentInput, 'content'> {
  /** Digest of the source and of the converter's version (any change must change it). */
  sourceHash: string;
  content: () => string;
}

export type BulkDocumentInput = IngestDocumentInput | DerivedDocumentInput;

export interface IngestResult {
  documentId: string;
  skipped: boolean;
  /** Child chunks stored (0 when skipped). */
  chunks: number;
}

/**
 * Characters of Markdown per chunk when a load estimates its chunks before splitting: the most a
 * chunk holds (300 estimated tokens), so the estimate is a lower bound.
 */
const CHARS_PER_CHUNK_BOUND = 1200;

/**
 * Markdown from this size up is split (and, by the built-in embedder, embedded) in the worker
 * pool's thread even when it comes alone: splitting takes about a second per 100-300 KB of
 * Markdown, up to tens of seconds for a 10 MB request, and 10 ms a KB for the costliest shapes
 * (a table of 16,000 columns in 64 KB: 650 ms), which on the server's thread would hold every
 * other request for as long.
 */
const OFF_THREAD_SPLIT_CHARS = 16 * 1024;
/**
 * ...and so is Markdown of this many line breaks or more, whatever its size: splitting costs by the
 * block, and 4,000 one-line headings (38 KB) held the server's thread for 127-314 ms.
 */
const OFF_THREAD_SPLIT_LINES = 1_000;

/** Whether a document is split in the worker pool rather than on the calling thread. */
export function splitsOffThread(content: string): boolean {
  if (content.length >= OFF_THREAD_SPLIT_CHARS) return true;
  if (content.length < OFF_THREAD_SPLIT_LINES) return false;
  let lines = 0;
  for (let at = content.indexOf('\n'); at >= 0; at = content.indexOf('\n', at + 1)) {
    if (++lines >= OFF_THREAD_SPLIT_LINES) return true;
  }
  return false;
}

/** Longest stretch of bulk preparation before the event loop gets a turn. */
const YIELD_AFTER_MS = 20;

/**
 * Ends a bulk load, building the vector index if the load had it set aside. The documents are
 * written either way: a failed build is logged, not thrown (searches read every chunk until the
 * index is built by the next large load or the next start).
 */
export async function endLoad(load: BulkLoad, logger: Logger): Promise<void> {
  const started = performance.now();
  try {
    if (await load.end()) logger.info({ ms: Math.round(performance.now() - started) }, 'vector index built after a bulk load');
  } catch (error) {
    logger.error({ err: error }, 'building the vector index after a bulk load failed; it is built at the next large load or start');
  }
}

/** A metadata value with its ill-formed text made well formed (keys too). */
function wellFormedValue(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (Array.isArray(value)) return value.map(wellFormedValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormedText(k), wellFormedValue(v)]));
  }
  return value;
}

/**
 * The input with every NUL character and unpaired surrogate in its text replaced by U+FFFD (the
 * store cannot hold them; they come from files and third-party documents, not from the API,
 * which refuses them). The same object when there are none.
 */
function wellFormedInput<T extends BulkDocumentInput>(input: T): T {
  const content = input.content;
  const derived = typeof content === 'function';
  const clean =
    !isIllFormedText(input.title) &&
    (input.slug === undefined || !isIllFormedText(input.slug)) &&
    (derived || !isIllFormedText(content)) &&
    (input.metadata === undefined || illFormedTextPath(input.metadata) === undefined);
  if (clean && !derived) return input;
  return {
    ...input,
    title: wellFormedText(input.title),
    ...(input.slug === undefined ? {} : { slug: wellFormedText(input.slug) }),
    content: derived ? () => wellFormedText(content()) : wellFormedText(content),
    ...(input.metadata === undefined ? {} : { metadata: wellFormedValue(input.metadata) as Record<string, unknown> }),
  };
}

/**
 * The ingestion pipeline every method shares. Steps run in the specified order, but nothing is
 * written until the embeddings are back: the writes of steps 2-4 and 7 then happen in one short
 * transaction, so a failure anywhere leaves the previous version of the document whole.
 */
export class IngestionService {
  private readonly documents: DocumentsRepository;

  /** The batch being prepared on this thread (see prepareMany). */
  private preparing: Promise<unknown> = Promise.resolve();

  /** Whether this process serves requests while it ingests. */
  private readonly serving: boolean;

  /**
   * @param options.serving whether this process serves requests while it ingests (default true).
   *   A serving process writes bulk loads in transactions as small as the store asks for
   *   (Database.servingWriteChunks), so that other requests' queries get their turn in between.
   *   A command-line load has nobody to keep waiting and writes whole batches.
   */
  constructor(
    private readonly database: Database,
    private readonly embedder: Embedder,
    private readonly logger: Logger,
    options: { serving?: boolean } = {},
  ) {
    this.documents = new DocumentsRepository(database);
    this.serving = options.serving !== false;
  }

  /** Chunks per write transaction of a bulk load now (Infinity: the whole batch in one). */
  private writeChunkBudget(): number {
    return this.serving ? this.database.servingWriteChunks() : Number.POSITIVE_INFINITY;
  }

  /** The content hash a document is stored with (its text made well formed first, as stored). */
  hashOf(input: BulkDocumentInput): string {
    return this.hash(wellFormedInput(input));
  }

  /** {@link hashOf} of an input already made well formed. */
  private hash(input: BulkDocumentInput): string {
    return contentHash({
      title: input.title,
      content: typeof input.content === 'string' ? input.content : `derived:${(input as DerivedDocumentInput).sourceHash}`,
      metadata: input.metadata ?? {},
      chunkerVersion: CHUNKER_VERSION,
      embeddingModel: `${this.embedder.model}/${this.embedder.dimension}`,
    });
  }

  /**
   * Runs the pipeline on one document; `scope` is the caller's (a namespace outside it is
   * refused); `method` names the way it came in, for metrics (markdown, url, ...).
   */
  ingest(raw: IngestDocumentInput, signal?: AbortSignal, scope: NamespaceScope = null, method = 'markdown'): Promise<IngestResult> {
    return inSpan('ingest', { 'kb.ingest.method': method, 'kb.namespace': raw.namespace }, async (span) => {
      const result = await this.ingestOne(raw, signal, scope, method);
      span?.setAttributes({ 'kb.ingest.skipped': result.skipped, 'kb.ingest.chunks': result.chunks });
      return result;
    });
  }

  private async ingestOne(raw: IngestDocumentInput, signal: AbortSignal | undefined, scope: NamespaceScope, method: string): Promise<IngestResult> {
    assertInScope(raw.namespace, scope);
    const input = wellFormedInput(raw);
    const slug = input.slug ?? input.title;
    const hash = this.hash(input);

    // 1. Content hash check: an unchanged document costs one indexed lookup.
    const existing = await this.documents.findVersion(input.namespace, slug);
    if (existing?.content_hash === hash) {
      if (input.folder !== undefined && existing.folder !== input.folder) await this.documents.setFolder([existing.id], input.folder);
      metrics.ingested(method, 'skipped', 0);
      return { documentId: existing.id, skipped: true, chunks: 0 };
    }
    try {
      const result = await this.process(input, slug, hash, signal);
      metrics.ingested(method, result.skipped ? 'skipped' : existing ? 'updated' : 'created', result.chunks);
      return result;
    } catch (error) {
      if (!signal?.aborted) metrics.ingested(method, 'failed', 0);
      throw error;
    }
  }

  /**
   * Bulk ingestion (folders, imports): the hash check of a whole batch is one query per
   * namespace, each changed document is split and embedded on its own (one embedding call per
   * document), and all of them are written in one transaction with a handful of statements.
   * If that transaction fails, the documents are written one by one, so one bad document
   * fails alone. Results are in input order; a failed document's result is its error.
   */
  ingestMany(
    raw: readonly BulkDocumentInput[],
    signal?: AbortSignal,
    options: { load?: BulkLoad; method?: string } = {},
  ): Promise<Array<IngestResult | Error>> {
    return inSpan('ingest batch', { 'kb.ingest.method': options.method ?? 'bulk', 'kb.ingest.documents': raw.length }, () => this.ingestBatch(raw, signal, options));
  }

  private async ingestBatch(
    raw: readonly BulkDocumentInput[],
    signal: AbortSignal | undefined,
    options: { load?: BulkLoad; method?: string },
  ): Promise<Array<IngestResult | Error>> {
    const inputs = raw.map(wellFormedInput);
    // 1. The hash check of the whole batch: one query per namespace.
    const prepared = inputs.map((input) => ({ input, slug: input.slug ?? input.title, hash: this.hash(input) }));
    const known = new Map<string, Map<string, StoredVersion>>();
    for (const namespace of new Set(inputs.map((i) => i.namespace))) {
      known.set(namespace, await this.documents.findVersions(namespace, prepared.filter((p) => p.input.namespace === namespace).map((p) => p.slug)));
    }
    const { results, pending } = await this.prepareMany(prepared, known, signal);
    await this.confirmFolders(prepared, known);
    // The chunks about to be written count towards the load they belong to, if any.
    await options.load?.expect(pending.reduce((n, p) => n + p.version.children.length, 0));
    const budget = this.writeChunkBudget();
    for (const group of this.writeGroups(pending, budget)) {
      // Bounded transactions leave other requests their turn in between.
      if (Number.isFinite(budget)) await new Promise((resolve) => setImmediate(resolve));
      await this.writeGroup(group, results);
    }
    if (metrics.enabled) {
      const method = options.method ?? 'bulk';
      results.forEach((result, i) => {
        if (result === undefined) return;
        const { input, slug } = prepared[i]!;
        if (result instanceof Error) metrics.ingested(method, 'failed', 0);
        else if (result.skipped) metrics.ingested(method, 'skipped', 0);
        else metrics.ingested(method, known.get(input.namespace)?.has(slug) ? 'updated' : 'created', result.chunks);
      });
    }
    return results as Array<IngestResult | Error>;
  }

  /** Steps 5 and 6 of a batch: splitting and embedding what the hash check found changed. */
  private async prepareMany(
    prepared: ReadonlyArray<{ input: BulkDocumentInput; slug: string; hash: string }>,
    known: ReadonlyMap<string, ReadonlyMap<string, StoredVersion>>,
    signal?: AbortSignal,
  ): Promise<{ results: Array<IngestResult | Error | undefined>; pending: Array<{ index: number; version: DocumentVersion }> }> {
    const results: Array<IngestResult | Error | undefined> = new Array(prepared.length);
    const changed: Array<{ index: number; input: BulkDocumentInput; slug: string; hash: string }> = [];
    for (const [index, { input, slug, hash }] of prepared.entries()) {
      const existing = known.get(input.namespace)?.get(slug);
      if (existing?.content_hash === hash) results[index] = { documentId: existing.id, skipped: true, chunks: 0 };
      else changed.push({ index, input, slug, hash });
    }
    if (changed.length > 0 && this.embedder instanceof LocalEmbedder) {
      try {
        return { results, pending: await this.prepareOffThread(changed, results, signal) };
      } catch (error) {
        if (signal?.aborted) throw error;
        this.logger.warn({ err: error }, "preparing documents off the server's thread failed; preparing them on it");
      }
    }
    // With an in-process embedder, preparing on this thread is CPU work: one batch is prepared
    // at a time (in the order their hash checks end), because interleaved with another batch's,
    // a batch's preparation would end later, and the database (writing earlier batches) would
    // wait. A remote model's calls overlap. (The worker pool takes its requests in order anyway.)
    if (!this.embedder.inProcess) return { results, pending: await this.prepareHere(changed, results, signal) };
    const turn = this.preparing.then(() => this.prepareHere(changed, results, signal));
    this.preparing = turn.catch(() => undefined);
    return { results, pending: await turn };
  }

  /** Records the folder of unchanged documents whose recorded folder is another (or none). */
  private async confirmFolders(
    prepared: ReadonlyArray<{ input: BulkDocumentInput; slug: string; hash: string }>,
    known: ReadonlyMap<string, ReadonlyMap<string, StoredVersion>>,
  ): Promise<void> {
    const byFolder = new Map<string, string[]>();
    for (const { input, slug, hash } of prepared) {
      const stored = known.get(input.namespace)?.get(slug);
      if (input.folder === undefined || stored?.content_hash !== hash || stored.folder === input.folder) continue;
      byFolder.set(input.folder, [...(byFolder.get(input.folder) ?? []), stored.id]);
    }
    for (const [folder, ids] of byFolder) await this.documents.setFolder(ids, folder);
  }

  /** Steps 5 and 6 on this thread, document by document, yielding to requests in between. */
  private async prepareHere(
    changed: ReadonlyArray<{ index: number; input: BulkDocumentInput; slug: string; hash: string }>,
    results: Array<IngestResult | Error | undefined>,
    signal?: AbortSignal,
  ): Promise<Array<{ index: number; version: DocumentVersion }>> {
    const pending: Array<{ index: number; version: DocumentVersion }> = [];
    let slice = performance.now();
    for (const { index, input, slug, hash } of changed) {
      // Splitting and local embedding are CPU work: let requests in between documents.
      if (performance.now() - slice > YIELD_AFTER_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
      try {
        pending.push({ index, version: await this.prepare(input, slug, hash, signal) });
      } catch (error) {
        if (signal?.aborted) throw error;
        results[index] = error instanceof Error ? error : new Error(String(error));
      }
    }
    return pending;
  }

  /**
   * Steps 5 and 6 for the built-in embedder, in the worker pool's thread: this thread only
   * converts derived documents and assembles the versions. A document whose conversion fails
   * gets its error in `results`.
   */
  private async prepareOffThread(
    changed: ReadonlyArray<{ index: number; input: BulkDocumentInput; slug: string; hash: string }>,
    results: Array<IngestResult | Error | undefined>,
    signal?: AbortSignal,
  ): Promise<Array<{ index: number; version: DocumentVersion }>> {
    const sent: Array<{ index: number; input: BulkDocumentInput; slug: string; hash: string; content: string }> = [];
    for (const entry of changed) {
      try {
        sent.push({ ...entry, content: typeof entry.input.content === 'string' ? entry.input.content : entry.input.content() });
      } catch (error) {
        results[entry.index] = error instanceof Error ? error : new Error(String(error));
      }
    }
    const { documents, vectors } = await runTask('prepareDocuments', {
      documents: sent.map((s) => ({ title: s.input.title, content: s.content })),
      dimension: this.embedder.dimension,
    });
    signal?.throwIfAborted();
    const dimension = this.embedder.dimension;
    let offset = 0;
    return sent.map(({ index, input, slug, hash, content }, i) => {
      const split = documents[i]!;
      const first = offset;
      offset += split.children.length * dimension;
      return { index, version: this.version(input, slug, hash, content, split, (c) => vectors.subarray(first + c * dimension, first + (c + 1) * dimension)) };
    });
  }

  /**
   * Deletes the documents of `namespace` whose slug starts with `prefix` and is not in `keep`:
   * an import's clean-up of what disappeared from its source. Returns how many were removed.
   */
  removeMissing(namespace: Namespace, prefix: string, keep: ReadonlySet<string>): Promise<number> {
    return this.documents.deleteMissing(namespace, prefix, keep);
  }

  /** Records the source (a synced website, ...) that wrote or confirmed these documents. */
  recordSource(documentIds: readonly string[], sourceId: string): Promise<void> {
    return this.documents.setSource(documentIds, sourceId);
  }

  /** Removes documents a source wrote (all of them, or these), with their chunks; returns how many. */
  removeOfSource(sourceId: string, documentIds?: readonly string[]): Promise<number> {
    return this.documents.deleteOfSource(sourceId, documentIds);
  }

  /** Splits a bulk write into transactions of at most `budget` chunks (whole documents). */
  private writeGroups<T extends { version: DocumentVersion }>(pending: T[], budget: number): T[][] {
    if (!Number.isFinite(budget)) return pending.length > 0 ? [pending] : [];
    const groups: T[][] = [];
    let group: T[] = [];
    let chunks = 0;
    for (const entry of pending) {
      const size = entry.version.children.length;
      if (group.length > 0 && chunks + size > budget) {
        groups.push(group);
        group = [];
        chunks = 0;
      }
      group.push(entry);
      chunks += size;
    }
    if (group.length > 0) groups.push(group);
    return groups;
  }

  /**
   * One transaction for the group; if it fails, the documents are written one by one, so that one
   * bad document fails alone.
   */
  private async writeGroup(
    group: Array<{ index: number; version: DocumentVersion }>,
    results: Array<IngestResult | Error | undefined>,
  ): Promise<void> {
    const distinct = new Set(group.map((p) => `${p.version.namespace}\u0000${p.version.slug}`)).size === group.length;
    let written: Array<{ documentId: string; skipped: boolean }> | undefined;
    if (distinct && group.length > 1) {
      try {
        written = await this.documents.writeVersions(group.map((p) => p.version));
      } catch (error) {
        this.logger.warn({ err: error, documents: group.length }, 'batch write failed; writing documents one by one');
      }
    }
    for (const [i, { index, version }] of group.entries()) {
      try {
        const result = written?.[i] ?? (await this.documents.writeVersion(version));
        results[index] = { ...result, chunks: result.skipped ? 0 : version.children.length };
      } catch (error) {
        results[index] = error instanceof Error ? error : new Error(String(error));
      }
    }
  }

  /**
   * Starts a large write (see BulkLoad): tell it the chunks to come with {@link expectChunks} or
   * by passing it to {@link ingestMany}, and end it however the write ends.
   */
  bulkLoad(): BulkLoad {
    return this.database.bulkLoad();
  }

  /**
   * Tells a load how many chunks these documents will make at least, from the size of the new and
   * changed ones, before any of them is split.
   */
  async expectChunks(load: BulkLoad, inputs: readonly IngestDocumentInput[]): Promise<void> {
    const changed = await this.changed(inputs);
    await load.expect(changed.reduce((n, input) => n + Math.ceil(input.content.length / CHARS_PER_CHUNK_BOUND), 0));
  }

  /** How many of these documents are new or changed (would not be skipped). */
  async countChanged(inputs: readonly BulkDocumentInput[]): Promise<number> {
    return (await this.changed(inputs)).length;
  }

  /** How many documents the store holds. */
  countDocuments(): Promise<number> {
    return this.documents.count();
  }

  /** Every stored document's slug by its id (evaluation maps search hits back to its corpus). */
  documentSlugs(): Promise<Map<string, string>> {
    return this.documents.slugsById();
  }

  /** The documents among these that are new or changed, by their content hash. */
  private async changed<T extends BulkDocumentInput>(raw: readonly T[]): Promise<T[]> {
    const inputs = raw.map(wellFormedInput);
    const changed: T[] = [];
    for (const namespace of new Set(inputs.map((i) => i.namespace))) {
      const mine = inputs.filter((i) => i.namespace === namespace);
      const known = await this.documents.findVersions(namespace, mine.map((i) => i.slug ?? i.title));
      for (const input of mine) {
        if (known.get(input.slug ?? input.title)?.content_hash !== this.hash(input)) changed.push(input);
      }
    }
    return changed;
  }

  private async process(input: IngestDocumentInput, slug: string, hash: string, signal?: AbortSignal): Promise<IngestResult> {
    const version = await inSpan('ingest split and embed', {}, () => this.prepare(input, slug, hash, signal));
    // 2-4, 7. Namespace, document, chunk replacement: one transaction.
    const result = await inSpan('ingest write', { 'kb.ingest.chunks': version.children.length }, () => this.documents.writeVersion(version));
    return { ...result, chunks: result.skipped ? 0 : version.children.length };
  }

  /** Steps 5 and 6: split and embed; nothing is written. */
  private async prepare(input: BulkDocumentInput, slug: string, hash: string, signal?: AbortSignal): Promise<DocumentVersion> {
    // 5. Hierarchical splitting (of the converted Markdown, for derived documents).
    const content = typeof input.content === 'string' ? input.content : input.content();
    let split: SplitDocument | undefined;
    if (splitsOffThread(content)) {
      // A large document is split in the worker pool; with the built-in embedder, embedded too.
      const local = this.embedder instanceof LocalEmbedder;
      try {
        const prepared = await runTask('prepareDocuments', { documents: [{ title: input.title, content }], dimension: local ? this.embedder.dimension : null });
        signal?.throwIfAborted();
        split = prepared.documents[0]!;
        if (local) {
          const { dimension } = this.embedder;
          return this.version(input, slug, hash, content, split, (i) => prepared.vectors.subarray(i * dimension, (i + 1) * dimension));
        }
      } catch (error) {
        if (signal?.aborted) throw error;
        this.logger.warn({ err: error }, 'preparing a large document in the worker pool failed; preparing it here');
      }
    }
    split ??= splitDocument({ title: input.title, content });

    // 6. One embedding call for all child chunks of the document.
    let vectors: ReadonlyArray<ArrayLike<number>> = [];
    if (split.children.length > 0) {
      try {
        const texts = split.children.map((c) => embeddingText(c.headingPath, c.content));
        vectors =
          this.embedder instanceof LocalEmbedder
            ? await this.embedder.embedVectors(texts, 'document', signal)
            : await this.embedder.embed(texts, 'document', signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        this.logger.warn({ err: error, namespace: input.namespace, slug }, 'embedding failed; document left as it was');
        throw new AppError('SERVICE_UNAVAILABLE', 'The embedding service failed; the document was not changed. Try again later.', { cause: error });
      }
    }
    return this.version(input, slug, hash, content, split, (i) => vectors[i]!);
  }

  /** What is written of a split document whose `i`th child has the vector `vector(i)`. */
  private version(
    input: BulkDocumentInput,
    slug: string,
    hash: string,
    content: string,
    split: SplitDocument,
    vector: (i: number) => ArrayLike<number>,
  ): DocumentVersion {
    const metadata = { ...split.metadata, ...(input.metadata ?? {}) };
    return {
      namespace: input.namespace,
      slug,
      title: input.title,
      metadata,
      contentHash: hash,
      content,
      url: documentUrl(metadata),
      ...(input.folder !== undefined ? { folder: input.folder } : {}),
      parents: split.parents,
      children: split.children.map((c, i) => ({ ...c, embedding: vector(i) })),
    };
  }
}
