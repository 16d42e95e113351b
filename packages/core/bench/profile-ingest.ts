import { readFileSync } from 'node:fs';
import { createDatabase } from '@kb/db';
import { chunkMarkdown } from '../src/chunking/index.ts';
import { LocalEmbedder } from '../src/embeddings/local.ts';
import { DocumentsRepository } from '../src/ingestion/documents.repository.ts';
import { embeddingText } from '../src/ingestion/ingestion.service.ts';

const lines = readFileSync('/work/shared/corpus/ir-eval/scifact/corpus.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, Number(process.argv[2] ?? 500));
const docs = lines.map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
const kind = process.argv[3] ?? 'pglite-memory';
const database = kind === 'pg' ? await createDatabase({ kind: 'postgres', databaseUrl: process.env.DATABASE_URL! }) : await createDatabase({ kind: 'pglite-memory' });
await database.migrate();
if (process.env.NOINDEX) await (await import("kysely")).sql`drop index chunks_embedding_idx`.execute(database.db);
const embedder = new LocalEmbedder();
const repo = new DocumentsRepository(database.db);
const t = { chunk: 0, embed: 0, write: 0 };
let chunks = 0;
for (const d of docs) {
  let s = performance.now();
  const c = chunkMarkdown({ title: d.title, content: d.text });
  t.chunk += performance.now() - s;
  const children = c.parents.flatMap((p) => p.children.map((ch) => ({ ...ch, parentOrdinal: p.ordinal })));
  s = performance.now();
  const vectors = await embedder.embed(children.map((x) => embeddingText(x.headingPath, x.content)), 'document');
  t.embed += performance.now() - s;
  s = performance.now();
  await repo.writeVersion({
    namespace: 'user_docs', slug: d._id, title: d.title, metadata: {}, contentHash: 'h',
    parents: c.parents.map((p) => ({ ordinal: p.ordinal, headingPath: p.headingPath, content: p.content })),
    children: children.map((x, i) => ({ ...x, embedding: vectors[i]! })),
  });
  t.write += performance.now() - s;
  chunks += children.length;
}
console.log(kind, docs.length, 'docs', chunks, 'chunks', Object.fromEntries(Object.entries(t).map(([k, v]) => [k, `${v.toFixed(0)} ms`])), `${(chunks / (t.write / 1000)).toFixed(0)} chunks/s write`);
await database.close();
