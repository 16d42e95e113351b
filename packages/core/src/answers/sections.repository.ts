import type { DB } from '@kb/db';
import { sql, type Kysely } from 'kysely';

/** A retrieved chunk with the section (parent chunk) and document it belongs to. */
export interface SectionHit {
  chunkId: string;
  chunkOrdinal: number;
  chunkContent: string;
  chunkTokens: number;
  /** The page of its source the chunk starts on (a PDF's), else null. */
  chunkPage: number | null;
  /** The parent section's id; the chunk's own id when it has no parent. */
  sectionId: string;
  sectionOrdinal: number;
  headingPath: string;
  /** The section's Markdown, its heading line included (the chunk's content when it has no parent). */
  sectionContent: string;
  documentId: string;
  title: string;
  slug: string;
  namespace: string;
  /** The document's link, null when it has none. */
  url: string | null;
}

/** Reads what retrieval widens hits to: parent sections and their documents. */
const COUNT_TTL_MS = 5_000;

export class SectionsRepository {
  private count: { chunks: number; at: number } | undefined;

  constructor(private readonly db: Kysely<DB>) {}

  private async chunkCount(): Promise<number> {
    if (!this.count || Date.now() - this.count.at > COUNT_TTL_MS) {
      const total = await sql<{ n: string }>`select chunks as n from corpus_stats`.execute(this.db);
      this.count = { chunks: Number(total.rows[0]?.n ?? 0), at: Date.now() };
    }
    return this.count.chunks;
  }

  /** The sections of some chunks (in no particular order; unknown ids are left out). */
  async sectionsOf(chunkIds: readonly string[]): Promise<SectionHit[]> {
    if (chunkIds.length === 0) return [];
    const rows = await sql<SectionHit>`${SectionsRepository.sections(chunkIds)}`.execute(this.db);
    return rows.rows;
  }

  /**
   * {@link sectionsOf} and {@link chunkFrequencies} in one statement: a standard retrieval needs
   * both once its search is done, and on the embedded store each statement waits for the last.
   */
  async sectionsAndFrequencies(
    chunkIds: readonly string[],
    words: readonly string[],
  ): Promise<{ sections: SectionHit[]; wordFrequencies: { chunks: number; frequencies: Map<string, number> } }> {
    const chunks = await this.chunkCount();
    const weighed = chunks === 0 ? [] : words;
    if (chunkIds.length === 0 && weighed.length === 0) return { sections: [], wordFrequencies: { chunks, frequencies: new Map() } };
    const { rows } = await sql<{ sections: SectionHit[] | null; frequencies: Record<string, number> | null }>`
      select (select json_agg(s) from (${SectionsRepository.sections(chunkIds)}) s) as sections,
             (select json_object_agg(f.word, f.df) from (${SectionsRepository.frequencies(weighed)}) f) as frequencies`.execute(this.db);
    const found = rows[0]?.frequencies ?? {};
    const frequencies = new Map<string, number>();
    for (const word of weighed) if (word in found) frequencies.set(word, Number(found[word]));
    return { sections: rows[0]?.sections ?? [], wordFrequencies: { chunks, frequencies } };
  }

  private static sections(chunkIds: readonly string[]) {
    return sql`
      select c.id as "chunkId", c.ordinal as "chunkOrdinal", c.content as "chunkContent", c.token_count as "chunkTokens", c.page as "chunkPage",
             coalesce(p.id, c.id) as "sectionId", coalesce(p.ordinal, c.ordinal) as "sectionOrdinal",
             coalesce(p.heading_path, c.heading_path) as "headingPath", coalesce(p.content, c.content) as "sectionContent",
             d.id as "documentId", d.title, d.slug, d.namespace, d.url
      from chunks c
      join documents d on d.id = c.document_id
      left join parent_chunks p on p.id = c.parent_id
      where c.id = any(${[...chunkIds]}::uuid[])`;
  }

  /** Each word's chunks, as the full-text index analyses it (see {@link chunkFrequencies}). */
  private static frequencies(words: readonly string[]) {
    return sql`
      select w.word, coalesce((
        select min(coalesce(s.chunks, 0))
        from unnest(tsvector_to_array(to_tsvector('english', w.word))) as l(lexeme)
        left join term_stats s on s.term = l.lexeme
      ), 0) as df
      from unnest(${[...words]}::text[]) as w(word)`;
  }

  /**
   * How many chunks hold each word, as the full-text index analyses it (a word the index
   * ignores, or splits into nothing, counts 0; a word it splits counts as its least frequent
   * part), and the number of chunks, both from the statistics the store keeps as chunks are
   * written and removed.
   */
  async chunkFrequencies(words: readonly string[]): Promise<{ chunks: number; frequencies: Map<string, number> }> {
    const frequencies = new Map<string, number>();
    const chunks = await this.chunkCount();
    if (words.length === 0 || chunks === 0) return { chunks, frequencies };
    const rows = await sql<{ word: string; df: string }>`${SectionsRepository.frequencies(words)}`.execute(this.db);
    for (const row of rows.rows) frequencies.set(row.word, Number(row.df));
    return { chunks, frequencies };
  }
}
