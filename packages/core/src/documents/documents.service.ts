import { stripFragmentMarkers } from '@kb/content';
import type { Database } from '@kb/db';
import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { pagePosition } from '../lists/keyset.ts';
import type { Logger } from '../logger.ts';
import { NAMESPACES, type NamespaceScope } from '../namespaces.ts';
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
  /** The source (a synced website, ...) that wrote it, if any. */
  sourceId?: string;
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
    ...(record.sourceId !== null ? { sourceId: record.sourceId } : {}),
    metadata: record.metadata,
    chunkCount: record.chunkCount,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

function inScope(namespace: string, scope: NamespaceScope): boolean {
  return scope === null || (scope as readonly string[]).includes(namespace);
}

const notFound = () => new AppError('NOT_FOUND', 'No such document');

/**
 * Stored documents: read by any key within its namespaces (by id, by namespace and slug, or by
 * URL); listed and deleted by administrators. FAQ entries made
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
    // Ids are UUIDs: another source id names no source, and so no document.
    if (filter.sourceId !== undefined && !isUuid(filter.sourceId)) return { documents: [], total: 0, take, skip, nextCursor: null };
    const { total, documents, nextCursor } = await this.repository.list(
      {
        ...(filter.namespace !== undefined ? { namespace: filter.namespace } : {}),
        ...(filter.q !== undefined ? { q: filter.q } : {}),
        ...(filter.folder !== undefined ? { folder: filter.folder } : {}),
        ...(filter.sourceId !== undefined ? { sourceId: filter.sourceId } : {}),
      },
      { limit: take, offset: skip, ...(after ? { after } : {}) },
    );
    return { documents: documents.map(toView), total, take, skip, nextCursor };
  }

  /**
   * A document with its Markdown and chunks. With a scope, a document outside it is "No such
   * document" as well: a key learns nothing of the namespaces it may not read. The Markdown is
   * shown without the included-fragment markers, which are stored for re-splitting only.
   */
  async get(id: string, scope: NamespaceScope = null): Promise<DocumentDetailView> {
    const found = isUuid(id) ? await this.repository.get(id) : undefined;
    if (!found || !inScope(found.namespace, scope)) throw notFound();
    return { ...toView(found), content: stripFragmentMarkers(found.content), chunks: found.chunks };
  }

  /**
   * A document found by its namespace and slug, or by its canonical URL (the first of the
   * scope's namespaces that holds it), read as {@link get} reads it.
   */
  async find(by: { namespace: string; slug: string } | { url: string }, scope: NamespaceScope = null): Promise<DocumentDetailView> {
    const namespaces = scope === null ? null : [...scope];
    const id =
      'url' in by
        ? await this.repository.idByUrl(by.url, namespaces)
        : inScope(by.namespace, scope)
          ? (await this.repository.findVersion(by.namespace, by.slug))?.id
          : undefined;
    if (id === undefined) throw new AppError('NOT_FOUND', 'url' in by ? `No document has the URL ${by.url.slice(0, 300)}` : `No document ${by.slug.slice(0, 300)} in ${by.namespace}`);
    return this.get(id, scope);
  }

  /** How many documents each namespace holds (those of the scope, every one without a scope; empty ones too). */
  async countsByNamespace(scope: NamespaceScope = null): Promise<Array<{ namespace: string; documents: number }>> {
    const counts = await this.repository.countByNamespace();
    const names = scope ?? NAMESPACES;
    return names.map((namespace) => ({ namespace, documents: counts.get(namespace) ?? 0 }));
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
