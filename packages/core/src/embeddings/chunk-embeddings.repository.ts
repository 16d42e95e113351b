import { dropVectorIndex, type Database } from '@kb/db';
import { sql } from 'kysely';

export interface ChunkText {
  id: string;
  headingPath: string;
  content: string;
}

/** The chunks' vectors, read and rewritten in place (re-embedding the store). */
export class ChunkEmbeddingsRepository {
  constructor(private readonly database: Pick<Database, 'db' | 'transaction' | 'vectorArrayParameter'>) {}

  async count(): Promise<number> {
    return Number((await sql<{ n: string }>`select count(*) as n from chunks`.execute(this.database.db)).rows[0]!.n);
  }

  /** Up to `limit` chunks in id order, after the chunk `after` (a keyset page). */
  async page(after: string, limit: number): Promise<ChunkText[]> {
    const rows = await this.database.db
      .selectFrom('chunks')
      .select(['id', 'heading_path', 'content'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, headingPath: r.heading_path, content: r.content }));
  }

  /** Sets the vectors of these chunks (`vectors[i]` is the vector of `ids[i]`). */
  async update(ids: readonly string[], vectors: ReadonlyArray<ArrayLike<number>>): Promise<void> {
    const db = this.database.db;
    await sql`
      update chunks set embedding = v.embedding
      from unnest(${[...ids]}::uuid[], ${await this.database.vectorArrayParameter(db, vectors)}) as v(id, embedding)
      where chunks.id = v.id`.execute(db);
  }

  /**
   * Makes the embedding column hold vectors of `dimension` components, emptying it, and drops the
   * vector index built for the old dimension (build it again once the column is filled).
   */
  async resize(dimension: number): Promise<void> {
    await this.database.transaction(async (trx) => {
      await dropVectorIndex(trx);
      await sql`alter table chunks alter column embedding type ${sql.raw(`vector(${dimension})`)} using null`.execute(trx);
    });
  }
}
