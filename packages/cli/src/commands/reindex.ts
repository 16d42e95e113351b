import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { createLogger, REINDEX_BATCH, ReindexService } from '@kb/core';
import { CliError, openStore } from '../store.ts';

export const REINDEX_USAGE = `Usage: kb reindex [--force] [--batch=N]

Re-embeds every chunk with the configured embedder (VOYAGE_API_KEY, VOYAGE_MODEL, KB_EMBEDDING_DIM)
and records it as the store's embedder. Needed after changing the embedding model or dimension; the
server refuses to start until it is done. Search results are incomplete while it runs.
  --force     re-embed even when the store already uses the configured embedder
  --batch=N   chunks per embedding call (default ${REINDEX_BATCH})`;

export async function reindexCommand(args: string[], config: Config, out: (s: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { force: { type: 'boolean', default: false }, batch: { type: 'string' } } });
  const batch = values.batch === undefined ? REINDEX_BATCH : Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000) throw new CliError('--batch must be 1 to 1000');

  // The store is opened as it is: re-embedding is what makes it match the configured embedder.
  const store = await openStore(config, { logger: createLogger({ level: 'warn' }), checkEmbedding: false });
  const { embedder } = store;
  try {
    const reindex = new ReindexService(store.database, embedder);
    if (!values.force && (await reindex.isCurrent())) {
      out(`The store already uses ${embedder.model} (${embedder.dimension} dimensions); nothing to do (--force re-embeds anyway).\n`);
      return 0;
    }
    const started = performance.now();
    const done = await reindex.reindex({
      batch,
      onProgress: (chunks, total) => out(`\rre-embedded ${chunks}/${total} chunks`),
      onIndexRebuild: () => out('\nrebuilding the vector index…'),
    });
    const seconds = (performance.now() - started) / 1000;
    out(`\nDone: ${done} chunks re-embedded with ${embedder.model} (${embedder.dimension} dimensions) in ${seconds.toFixed(1)} s.\n`);
    return 0;
  } finally {
    await store.close();
  }
}
