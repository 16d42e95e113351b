import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../database.ts';
import type { DB } from '../schema.ts';

/**
 * Rows in every table of the store, with the values a backup must carry exactly: microsecond
 * timestamps, JSON, NULLs, vectors, text with tabs, newlines and backslashes, large counters.
 * Tests of backups fill a store with it and check that every table holds rows first, so a table
 * added later fails them until it is filled here too.
 */
export async function fillEveryTable(database: Database, options: { documents?: number; dimension?: number; model?: string } = {}): Promise<void> {
  const db: Kysely<DB> = database.db;
  const dimension = options.dimension ?? 1024;
  const documents = options.documents ?? 3;
  const keyId = randomUUID();
  await sql`update store_meta set value = ${JSON.stringify({ model: options.model ?? 'local-test', dimension })}::jsonb where key = 'embedding'`.execute(db);
  await sql`insert into store_meta (key, value) values ('backup-fixture', ${JSON.stringify({ note: 'tab\there', n: 1.5 })}::jsonb)`.execute(db);
  await sql`insert into namespaces (id, created_at) values ('docs', '2026-01-02 03:04:05.123456+00'), ('api_endpoints', now())`.execute(db);
  await sql`insert into api_keys (id, label, key_hash, key_prefix, is_admin, rate_limit_rpm, request_count, last_used_at, kind, namespaces)
    values (${keyId}, ${'Ops "main"\nkey'}, ${'h'.repeat(64)}, 'kb_abcd', true, 60, 9007199254740993, now(), 'secret', ${JSON.stringify(['docs'])}::jsonb)`.execute(db);
  await sql`insert into api_keys (label, key_hash, key_prefix, kind, publishable_key, allowed_origins, daily_answer_limit)
    values ('Site', ${'p'.repeat(64)}, 'kb_pub_', 'publishable', 'kb_pub_xyz', ${JSON.stringify(['https://docs.example.com'])}::jsonb, 100)`.execute(db);
  await sql`insert into admin_sessions (token_hash, expires_at) values (${'s'.repeat(64)}, now() + interval '1 day')`.execute(db);

  const sourceId = randomUUID();
  await sql`insert into sources (id, kind, name, namespace, settings, schedule_minutes, next_sync_at, sync_count, last_sync_status, last_sync_started_at, last_sync_stats)
    values (${sourceId}, 'website', ${'Docs "site"'}, 'docs', ${JSON.stringify({ startUrl: 'https://docs.example.com/', include: ['/guide/*'] })}::jsonb, 1440,
            '2026-01-03 04:05:06.654321+00', 2, 'done', now(), ${JSON.stringify({ discovered: 3, fetched: 3, unchanged: 0, updated: 3, removed: 0, failed: 0 })}::jsonb)`.execute(db);

  for (let d = 0; d < documents; d++) {
    const documentId = randomUUID();
    const parentId = randomUUID();
    await sql`insert into documents (id, namespace, slug, title, metadata, content_hash, chunk_count, content, url, source_id)
      values (${documentId}, 'docs', ${`guide/${d}`}, ${`Guide ${d}`}, ${JSON.stringify({ tags: ['a', 'b'], path: 'C:\\docs\\x' })}::jsonb,
              ${`hash-${d}`}, 2, ${`# Guide ${d}\n\n\tIndented \\ text`}, ${`https://docs.example.com/${d}`}, ${sourceId})`.execute(db);
    await sql`insert into source_pages (source_id, url, document_id, final_url, status, http_status, etag, last_modified, body_hash, in_sitemap, links, last_sync)
      values (${sourceId}, ${`https://docs.example.com/${d}`}, ${documentId}, ${`https://docs.example.com/${d}`}, 'ok', 200, ${'W/"abc"'}, 'Tue, 01 Dec 2026 10:00:00 GMT',
              ${'b'.repeat(64)}, true, ${JSON.stringify([`https://docs.example.com/${d + 1}`])}::jsonb, 2)`.execute(db);
    await sql`insert into parent_chunks (id, document_id, ordinal, heading_path, content) values (${parentId}, ${documentId}, 0, ${`Guide ${d}`}, 'Parent text')`.execute(db);
    for (let c = 0; c < 2; c++) {
      const vector = Array.from({ length: dimension }, (_, i) => Math.fround(Math.sin(d * 31 + c * 7 + i) / 3));
      await sql`insert into chunks (document_id, parent_id, namespace, ordinal, heading_path, content, token_count, page, embedding, lexical_terms)
        values (${documentId}, ${parentId}, 'docs', ${c}, ${`Guide ${d} > Part ${c}`}, ${`Chunk ${c} of guide ${d}: install with\tpnpm`}, 12, ${c === 0 ? null : c + 1},
                ${database.vectorParameter(vector)}::vector, ${c === 0 ? null : JSON.stringify({ length: 2, counts: { guid: 1, instal: 1 } })}::jsonb)`.execute(db);
    }
  }

  const conversationId = randomUUID();
  const answerId = randomUUID();
  await sql`insert into conversations (id, api_key_id, language, sources, next_turn) values (${conversationId}, ${keyId}, 'en', '["docs"]'::jsonb, 1)`.execute(db);
  await sql`insert into messages (conversation_id, role, content, turn) values (${conversationId}, 'user', 'How do I install?', 0)`.execute(db);
  await sql`insert into messages (id, conversation_id, role, content, sources, turn, interrupted)
    values (${answerId}, ${conversationId}, 'assistant', 'Run pnpm install.', '[{"title":"Guide 0"}]'::jsonb, 0, false)`.execute(db);
  await sql`insert into message_feedback (message_id, conversation_id, api_key_id, rating, reasons, note, question_normalized)
    values (${answerId}, ${conversationId}, ${keyId}, 'down', '["wrong"]'::jsonb, null, 'how do i install')`.execute(db);
  await sql`insert into ingestion_jobs (type, status, payload, attempts, completed_at) values ('wiki', 'done', '{"space":"DOCS"}'::jsonb, 1, now())`.execute(db);
  await sql`insert into source_pages (source_id, url, status, reason, http_status, last_sync) values (${sourceId}, 'https://docs.example.com/broken', 'failed', 'The server answered 500', 500, 2)`.execute(db);
  await sql`insert into faq_cache (cache_key, query, scope, language, content, expires_at, sources, generator)
    values ('k1', 'install', 'docs', 'en', '## How?\n\nLike this.', now() + interval '7 days', '[]'::jsonb, 'extractive:1')`.execute(db);
  await sql`insert into faq_generations (cache_key, owner, expires_at) values ('k1', 'server-1', now())`.execute(db);
  await sql`insert into query_log (kind, query, normalized, namespaces, best_score, api_key_id, created_at)
    values ('search', 'install', 'install', '["docs"]'::jsonb, 0.123456789012345, ${keyId}, clock_timestamp())`.execute(db);
}
