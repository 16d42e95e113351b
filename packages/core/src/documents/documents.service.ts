import type { Database } from '@kb/db';
import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { pagePosition } from '../lists/keyset.ts';
import type { Logger } from '../logger.ts';
import {
  DocumentsRepository,
  type ChunkRecord,
  type DocumentFilter,
  type DocumentRecord,
} from '../ingestion/documents.repository.ts';

/** Most documents one page lists; a larger `limit` is clamped to it (and reported as `take`). */
export const MAX_DOCUMENTS_PAGE = 200;
export const DEFAULT_DOCUMENTS_PAGE = 50;

export interface DocumentView {
  id: string;
  namespace: string;
  slug: string;
  title: string;
  /** The canonical link, when the document has one. */
  url?: string;
  /** The folder of the `kb ingest-folder` run that recorded it, if any. */
  folder?: string;
  metadata: Record<string, unknown>;
  chunkCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentDetailView extends DocumentView {
  content: string;
  chunks: ChunkRecord[];
}

function toView(record: DocumentRecord): DocumentView {
  return {
    id: record.id,
    namespace: record.namespace,
    slug: record.slug,
    title: record.title,
    ...(record.url !== null ? { url: record.url } : {}),
    ...(record.folder !== null ? { folder: record.folder } : {}),
    metadata: record.metadata,
    chunkCount: record.chunkCount,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

const notFound = () => new AppError('NOT_FOUND', 'No such document');

/**
 * Stored documents for administrators: listed, read with their chunks, deleted. FAQ entries made
 * from a deleted document are made again on their next request (they remember their sources).
 */
export class DocumentsService {
  private readonly repository: DocumentsRepository;

  constructor(
    database: Database,
    private readonly logger: Logger,
  ) {
    this.repository = new DocumentsRepository(database);
  }

  async list(
    filter: DocumentFilter & { limit?: number; offset?: number; cursor?: string },
  ): Promise<{ documents: DocumentView[]; total: number; take: number; skip: number; nextCursor: string | null }> {
    const take = Math.min(filter.limit ?? DEFAULT_DOCUMENTS_PAGE, MAX_DOCUMENTS_PAGE);
    const { offset: skip, after } = pagePosition(filter);
    const { total, documents, nextCursor } = await this.repository.list(
      {
        ...(filter.namespace !== undefined ? { namespace: filter.namespace } : {}),
        ...(filter.q !== undefined ? { q: filter.q } : {}),
        ...(filter.folder !== undefined ? { folder: filter.folder } : {}),
      },
      { limit: take, offset: skip, ...(after ? { after } : {}) },
    );
    return { documents: documents.map(toView), total, take, skip, nextCursor };
  }

  async get(id: string): Promise<DocumentDetailView> {
    const found = isUuid(id) ? await this.repository.get(id) : undefined;
    if (!found) throw notFound();
    return { ...toView(found), content: found.content, chunks: found.chunks };
  }

  /**
   * Deletes the document and its chunks in one transaction; 404 when there is no such document,
   * or, with `folder`, when it no longer records that folder (a run over another folder took it
   * over since it was listed: `kb ingest-folder --prune` must not delete it then).
   */
  async delete(id: string, options: { folder?: string } = {}): Promise<{ deleted: true; id: string }> {
    const deleted = isUuid(id) ? await this.repository.delete(id, options) : undefined;
    if (!deleted) throw notFound();
    this.logger.info({ documentId: id, namespace: deleted.namespace, slug: deleted.slug }, 'document deleted');
    return { deleted: true, id };
  }

  /** The documents a folder run over `folder` recorded (what `kb ingest-folder --prune` compares). */
  inFolder(folder: string): Promise<Array<{ id: string; namespace: string; slug: string }>> {
    return this.repository.inFolder(folder);
  }
}
