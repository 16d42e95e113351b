import type { Migration, MigrationProvider } from 'kysely';
import { initialMigration } from './20261121T0000_initial.ts';
import { chunkParentIndexMigration } from './20261121T0100_chunk_parent_index.ts';
import { halfPrecisionVectorIndexMigration } from './20261122T0000_half_precision_vector_index.ts';
import { conversationTurnsMigration } from './20261123T0000_conversation_turns.ts';
import { faqSourcesMigration } from './20261124T0000_faq_sources.ts';
import { documentRecordsMigration } from './20261125T0000_document_records.ts';
import { queryLogMigration } from './20261125T0100_query_log.ts';
import { keyKindsAndFeedbackMigration } from './20261127T0900_key_kinds_and_feedback.ts';
import { longTextKeysMigration } from './20261127T1000_long_text_keys.ts';
import { queryLogAnswersMigration } from './20261127T1100_query_log_answers.ts';
import { corpusStatisticsMigration } from './20261127T1200_corpus_statistics.ts';
import { jobRetriesMigration } from './20261127T1300_job_retries.ts';
import { documentUrlsMigration } from './20261127T1400_document_urls.ts';
import { namespaceStatisticsMigration } from './20261127T1500_namespace_statistics.ts';
import { sourcesMigration } from './20261202T0100_sources.ts';
import { chunkPagesMigration } from './20261202T0200_chunk_pages.ts';
import { writeDocumentsMigration } from './20261202T0430_write_documents.ts';
import { chunkLexicalTermsMigration } from './20261202T1108_chunk_lexical_terms.ts';
import { chunkFragmentsMigration } from './20261202T1230_chunk_fragments.ts';

export interface MigrationOptions {
  /** Dimension of the embedding column for a store created by these migrations. */
  embeddingDimension: number;
  /** The store the migrations run on (their index definitions differ). */
  kind: 'postgres' | 'pglite';
}

/** Every migration, in order. Names are timestamps; a migration never changes once released. */
export function migrationProvider(options: MigrationOptions): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '20261121T0000_initial': initialMigration(options.embeddingDimension),
        '20261121T0100_chunk_parent_index': chunkParentIndexMigration,
        '20261122T0000_half_precision_vector_index': halfPrecisionVectorIndexMigration(options.kind),
        '20261123T0000_conversation_turns': conversationTurnsMigration,
        '20261124T0000_faq_sources': faqSourcesMigration,
        '20261125T0000_document_records': documentRecordsMigration,
        '20261125T0100_query_log': queryLogMigration,
        '20261127T0900_key_kinds_and_feedback': keyKindsAndFeedbackMigration,
        '20261127T1000_long_text_keys': longTextKeysMigration,
        '20261127T1100_query_log_answers': queryLogAnswersMigration,
        '20261127T1200_corpus_statistics': corpusStatisticsMigration,
        '20261127T1300_job_retries': jobRetriesMigration,
        '20261127T1400_document_urls': documentUrlsMigration,
        '20261127T1500_namespace_statistics': namespaceStatisticsMigration,
        '20261202T0100_sources': sourcesMigration,
        '20261202T0200_chunk_pages': chunkPagesMigration,
        '20261202T0430_write_documents': writeDocumentsMigration,
        '20261202T1108_chunk_lexical_terms': chunkLexicalTermsMigration,
        '20261202T1230_chunk_fragments': chunkFragmentsMigration,
      };
    },
  };
}
