import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { embeddingText } from '@kb/content';
import { createEmbedder, createLogger, readStoreEmbedding, toVectorLiteral, writeStoreEmbedding } from '@kb/core';
import { createVectorIndex, dropVectorIndex } from '@kb/db';
import { sql } from 'kysely';
import { CliError, openStore } from '../store.ts';

export const REINDEX_USAGE = `Usage: kb reindex [--force] [--batch=N]

Re-embeds every chunk with the configured embedder (VOYAGE_API_KEY, VOYAGE_MODEL, KB_EMBEDDING_DIM)
and records it as the store's embedder. Needed after changing the embedding model or dimension; the
server refuses to start until it is done. Search results are incomplete while it runs.
  --force     re-embed even when the store already uses the configured embedder
  --batch=N   chunks per embedding call (default 256)`;

export async function reindexCommand(args: string[], config: Config, out: (s: string) => void): Promise<number> {
  const { values } = parseArgs({ args, options: { force: { type: 'boolean', default: false }, batch: { type: 'string' } } });
  const batch = values.batch === undefined ? 256 : Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 1000) throw new CliError('--batch must be 1 to 1000');

  const logger = createLogger({ level: 'warn' });
  const embedder = createEmbedder(config, logger);
  const database = await openStore(config);
  const db = database.db;
  try {
    const stored = await readStoreEmbedding(db);
    if (!values.force && stored.model === embedder.model && stored.dimension === embedder.dimension) {
      out(`The store already uses ${embedder.model} (${embedder.dimension} dimensions); nothing to do (--force re-embeds anyway).\n`);
      return 0;
    }
    const started = performance.now();
    const resize = stored.dimension !== embedder.dimension;
    if (resize) {
      await db.transaction().execute(async (trx) => {
        await dropVectorIndex(trx);
        await sql`alter table chunks alter column embedding type ${sql.raw(`vector(${embedder.dimension})`)} using null`.execute(trx);
      });
    }
    const total = Number((await sql<{ n: string }>`select count(*) as n from chunks`.execute(db)).rows[0]!.n);
    let done = 0;
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = await db
        .selectFrom('chunks')
        .select(['id', 'heading_path', 'content'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(batch)
        .execute();
      if (rows.length === 0) break;
      const vectors = await embedder.embed(rows.map((r) => embeddingText(r.heading_path, r.content)), 'document');
      await sql`
        update chunks set embedding = v.embedding::vector
        from unnest(${rows.map((r) => r.id)}::uuid[], ${vectors.map((v) => toVectorLiteral(v))}::text[]) as v(id, embedding)
        where chunks.id = v.id`.execute(db);
      done += rows.length;
      after = rows[rows.length - 1]!.id;
      out(`\rre-embedded ${done}/${total} chunks`);
    }
    if (resize) {
      out('\nrebuilding the vector index…');
      await createVectorIndex(db, database.kind);
    }
    await writeStoreEmbedding(db, { model: embedder.model, dimension: embedder.dimension });
    const seconds = (performance.now() - started) / 1000;
    out(`\nDone: ${done} chunks re-embedded with ${embedder.model} (${embedder.dimension} dimensions) in ${seconds.toFixed(1)} s.\n`);
    return 0;
  } finally {
    await database.close();
  }
}
