import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so equal metadata always hashes equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/**
 * The content hash of a document version. It covers everything that shapes the stored chunks
 * and vectors: title, content, metadata, the chunker's version and the embedding model, so a
 * better chunker or another model re-processes a document on its next ingest.
 */
export function contentHash(input: {
  title: string;
  content: string;
  metadata: Record<string, unknown>;
  chunkerVersion: string;
  embeddingModel: string;
}): string {
  return createHash('sha256')
    .update(
      canonicalJson([input.chunkerVersion, input.embeddingModel, input.title, input.metadata, input.content]),
      'utf8',
    )
    .digest('hex');
}

/** A 64-bit advisory-lock key for one (namespace, slug). */
export function documentLockKey(namespace: string, slug: string): string {
  return createHash('sha256').update(`${namespace}\u0000${slug}`, 'utf8').digest().readBigInt64BE(0).toString();
}
