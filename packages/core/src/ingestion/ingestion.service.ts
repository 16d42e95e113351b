import type { Database } from '@kb/db';
import { CHUNKER_VERSION, chunkMarkdown } from '../chunking/index.ts';
import type { Embedder } from '../embeddings/types.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Namespace } from '../namespaces.ts';
import { contentHash } from './content-hash.ts';
import { DocumentsRepository, type StoredChild } from './documents.repository.ts';

export interface IngestDocumentInput {
  namespace: Namespace;
  title: string;
  /** Deduplication key within the namespace; defaults to the title. */
  slug?: string;
  /** Markdown; YAML front matter becomes metadata. */
  content: string;
  metadata?: Record<string, unknown>;
}

export interface IngestResult {
  documentId: string;
  skipped: boolean;
  /** Child chunks stored (0 when skipped). */
  chunks: number;
}

/** The text a child chunk is embedded as: its heading trail (title first) and its content. */
export function embeddingText(headingPath: string, content: string): string {
  return `${headingPath}\n\n${content}`;
}

/**
 * The ingestion pipeline every method shares. Steps run in the specified order, but nothing is
 * written until the embeddings are back: the writes of steps 2-4 and 7 then happen in one short
 * transaction, so a failure anywhere leaves the previous version of the document whole.
 */
export class IngestionService {
  private readonly documents: DocumentsRepository;

  constructor(
    database: Database,
    private readonly embedder: Embedder,
    private readonly logger: Logger,
  ) {
    this.documents = new DocumentsRepository(database.db);
  }

  hashOf(input: IngestDocumentInput): string {
    return contentHash({
      title: input.title,
      content: input.content,
      metadata: input.metadata ?? {},
      chunkerVersion: CHUNKER_VERSION,
      embeddingModel: `${this.embedder.model}/${this.embedder.dimension}`,
    });
  }

  async ingest(input: IngestDocumentInput, signal?: AbortSignal): Promise<IngestResult> {
    const slug = input.slug ?? input.title;
    const hash = this.hashOf(input);

    // 1. Content hash check: an unchanged document costs one indexed lookup.
    const existing = await this.documents.findVersion(input.namespace, slug);
    if (existing?.content_hash === hash) return { documentId: existing.id, skipped: true, chunks: 0 };
    return this.process(input, slug, hash, signal);
  }

  /**
   * Bulk ingestion (folders, imports): the hash check of a whole batch is one query per
   * namespace, so unchanged documents cost no round trip of their own; changed ones go
   * through the pipeline one by one. Results are in input order; a failed document's result
   * is its error, and the others are unaffected.
   */
  async ingestMany(inputs: readonly IngestDocumentInput[], signal?: AbortSignal): Promise<Array<IngestResult | Error>> {
    const prepared = inputs.map((input) => ({ input, slug: input.slug ?? input.title, hash: this.hashOf(input) }));
    const known = new Map<string, Map<string, { id: string; content_hash: string }>>();
    for (const namespace of new Set(inputs.map((i) => i.namespace))) {
      known.set(namespace, await this.documents.findVersions(namespace, prepared.filter((p) => p.input.namespace === namespace).map((p) => p.slug)));
    }
    const results: Array<IngestResult | Error> = [];
    for (const { input, slug, hash } of prepared) {
      const existing = known.get(input.namespace)?.get(slug);
      if (existing?.content_hash === hash) {
        results.push({ documentId: existing.id, skipped: true, chunks: 0 });
        continue;
      }
      try {
        results.push(await this.process(input, slug, hash, signal));
      } catch (error) {
        if (signal?.aborted) throw error;
        results.push(error instanceof Error ? error : new Error(String(error)));
      }
    }
    return results;
  }

  private async process(input: IngestDocumentInput, slug: string, hash: string, signal?: AbortSignal): Promise<IngestResult> {

    // 5. Hierarchical splitting.
    const chunked = chunkMarkdown({ title: input.title, content: input.content });
    const children = chunked.parents.flatMap((parent) =>
      parent.children.map((child) => ({ ...child, parentOrdinal: parent.ordinal })),
    );

    // 6. One embedding call for all child chunks of the document.
    let vectors: number[][] = [];
    if (children.length > 0) {
      try {
        vectors = await this.embedder.embed(
          children.map((c) => embeddingText(c.headingPath, c.content)),
          'document',
          signal,
        );
      } catch (error) {
        if (signal?.aborted) throw error;
        this.logger.warn({ err: error, namespace: input.namespace, slug }, 'embedding failed; document left as it was');
        throw new AppError('SERVICE_UNAVAILABLE', 'The embedding service failed; the document was not changed. Try again later.', { cause: error });
      }
    }

    // 2-4, 7. Namespace, document, chunk replacement: one transaction.
    const stored: StoredChild[] = children.map((c, i) => ({
      parentOrdinal: c.parentOrdinal,
      ordinal: c.ordinal,
      headingPath: c.headingPath,
      content: c.content,
      tokenCount: c.tokenCount,
      embedding: vectors[i]!,
    }));
    const result = await this.documents.writeVersion({
      namespace: input.namespace,
      slug,
      title: input.title,
      metadata: { ...chunked.metadata, ...(input.metadata ?? {}) },
      contentHash: hash,
      parents: chunked.parents.map((p) => ({ ordinal: p.ordinal, headingPath: p.headingPath, content: p.content })),
      children: stored,
    });
    return { ...result, chunks: result.skipped ? 0 : stored.length };
  }
}
