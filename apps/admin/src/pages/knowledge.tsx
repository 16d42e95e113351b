import { useCallback, useState, type FormEvent } from 'react';
import type { SubRoute } from '../app.tsx';
import { formatDate, kb, NAMESPACES, type Namespace } from '../api.ts';
import { ConfirmButton, ErrorNote, ExternalLink, NamespaceSelect, Pager, Section, useAction, useLoad, usePaged } from '../ui.tsx';
import { FileUpload } from './file-upload.tsx';

const PAGE_SIZE = 20;
/** Chunk counts are summed over the document list; past this many documents a namespace shows "at least". */
const COUNT_CHUNKS_UP_TO = 2_000;
const COUNT_PAGE = 200;

interface NamespaceCount {
  namespace: Namespace;
  documents: number;
  chunks: number;
  /** The chunk count covers only the first documents. */
  partial: boolean;
}

/** Documents and chunks per namespace, from the document list (its total, and each document's chunk count). */
async function countNamespace(namespace: Namespace): Promise<NamespaceCount> {
  let chunks = 0;
  let seen = 0;
  let total = 0;
  do {
    const page = await kb.documents.list({ namespace, limit: COUNT_PAGE, offset: seen });
    total = page.total;
    for (const document of page.documents) chunks += document.chunkCount;
    seen += page.documents.length;
    if (page.documents.length === 0) break;
  } while (seen < total && seen < COUNT_CHUNKS_UP_TO);
  return { namespace, documents: total, chunks, partial: seen < total };
}

/** The namespaces and the document list at /admin/knowledge, a document at /admin/knowledge/<id>. */
export function KnowledgePage({ sub, navigate }: SubRoute) {
  if (sub) return <DocumentView id={sub} onBack={() => navigate('')} onDeleted={() => navigate('')} />;
  return <Overview onOpen={navigate} />;
}

function Overview({ onOpen }: { onOpen(id: string): void }) {
  const counts = useLoad(() => Promise.all(NAMESPACES.map(countNamespace)), []);
  const [namespace, setNamespace] = useState<Namespace | ''>('');
  const [query, setQuery] = useState('');
  const [folder, setFolder] = useState('');
  const {
    result: documents,
    setSkip,
    apply: applyFilters,
  } = usePaged(
    { namespace: '' as Namespace | '', q: '', folder: '' },
    (filters, paging) =>
      kb.documents.list({
        ...(filters.namespace ? { namespace: filters.namespace } : {}),
        ...(filters.q ? { q: filters.q } : {}),
        ...(filters.folder ? { folder: filters.folder } : {}),
        ...paging,
      }),
    PAGE_SIZE,
  );

  // A stored file changes the counts and may enter the list.
  const { reload: reloadCounts } = counts;
  const { reload: reloadDocuments } = documents;
  const uploaded = useCallback(() => {
    reloadCounts();
    reloadDocuments();
  }, [reloadCounts, reloadDocuments]);

  function apply(event: FormEvent) {
    event.preventDefault();
    applyFilters({ namespace, q: query.trim(), folder: folder.trim() });
  }

  return (
    <>
      <Section title="Namespaces">
        <ErrorNote error={counts.error} />
        <div className="stats">
          {(counts.data ?? NAMESPACES.map((name) => ({ namespace: name, documents: undefined, chunks: undefined, partial: false }))).map((count) => (
            <button
              type="button"
              key={count.namespace}
              className="stat"
              data-namespace={count.namespace}
              onClick={() => {
                setNamespace(count.namespace);
                applyFilters({ namespace: count.namespace, q: query.trim(), folder: folder.trim() });
              }}
            >
              <span className="stat-name">{count.namespace}</span>
              <span className="stat-value">{count.documents === undefined ? '…' : `${count.documents.toLocaleString()} ${count.documents === 1 ? 'document' : 'documents'}`}</span>
              <span className="muted">
                {count.chunks === undefined ? '…' : `${count.partial ? 'at least ' : ''}${count.chunks.toLocaleString()} ${count.chunks === 1 ? 'chunk' : 'chunks'}`}
              </span>
            </button>
          ))}
        </div>
      </Section>
      <FileUpload onUploaded={uploaded} onOpen={onOpen} />
      <Section title="Documents">
        <form className="row-form" onSubmit={apply}>
          <NamespaceSelect value={namespace} onChange={setNamespace} all />
          <label>
            Title or slug contains
            <input name="q" type="search" value={query} onChange={(event) => setQuery(event.target.value)} />
          </label>
          <label>
            Folder
            <input name="folder" value={folder} onChange={(event) => setFolder(event.target.value)} placeholder="any" />
          </label>
          <button type="submit">Filter</button>
        </form>
        <ErrorNote error={documents.error} />
        {documents.data && documents.data.documents.length === 0 && <p className="muted">No documents match.</p>}
        {documents.data && documents.data.documents.length > 0 && (
          <div className="table-wrap">
            <table className="documents">
              <thead>
                <tr>
                  <th>Title</th>
                  <th>Namespace</th>
                  <th>Slug</th>
                  <th>Chunks</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {documents.data.documents.map((document) => (
                  <tr key={document.id}>
                    <td data-label="Title">
                      <button type="button" className="link" onClick={() => onOpen(document.id)}>
                        {document.title || '(untitled)'}
                      </button>
                    </td>
                    <td data-label="Namespace">{document.namespace}</td>
                    <td data-label="Slug" className="break">
                      {document.url ? <ExternalLink href={document.url}>{document.slug}</ExternalLink> : document.slug}
                    </td>
                    <td data-label="Chunks">{document.chunkCount}</td>
                    <td data-label="Updated">{formatDate(document.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {documents.data && <Pager total={documents.data.total} take={documents.data.take} skip={documents.data.skip} onPage={setSkip} />}
      </Section>
    </>
  );
}

function DocumentView({ id, onBack, onDeleted }: { id: string; onBack(): void; onDeleted(): void }) {
  const document = useLoad(() => kb.documents.get(id), [id]);
  const remove = useAction();
  const data = document.data;
  return (
    <>
      <p>
        <button type="button" onClick={onBack}>
          ← All documents
        </button>
      </p>
      <ErrorNote error={document.error} />
      {data && (
        <Section
          title={data.title || '(untitled)'}
          actions={
            <ConfirmButton
              label="Delete document"
              question="Delete this document and its chunks? Search stops finding it at once."
              confirmLabel="Yes, delete"
              disabled={remove.busy}
              onConfirm={() => void remove.run(() => kb.documents.delete(id)).then((done) => done && onDeleted())}
            />
          }
        >
          <ErrorNote error={remove.error} />
          <dl className="facts">
            <dt>Namespace</dt>
            <dd>{data.namespace}</dd>
            <dt>Slug</dt>
            <dd className="break">{data.slug}</dd>
            {data.url && (
              <>
                <dt>Link</dt>
                <dd className="break">
                  <ExternalLink href={data.url}>{data.url}</ExternalLink>
                </dd>
              </>
            )}
            {data.folder && (
              <>
                <dt>Folder</dt>
                <dd className="break">{data.folder}</dd>
              </>
            )}
            <dt>Updated</dt>
            <dd>{formatDate(data.updatedAt)}</dd>
            <dt>Chunks</dt>
            <dd>{data.chunkCount}</dd>
          </dl>
          {Object.keys(data.metadata).length > 0 && (
            <details>
              <summary>Metadata</summary>
              <pre>{JSON.stringify(data.metadata, null, 2)}</pre>
            </details>
          )}
          <h3>Chunks</h3>
          {data.chunks.length === 0 && <p className="muted">This document has no chunks (it is empty, or only links).</p>}
          <ol className="chunks">
            {data.chunks.map((chunk) => (
              <li key={chunk.chunkId}>
                <p className="heading-path">{chunk.headingPath}</p>
                <p className="muted">{chunk.tokenCount} tokens</p>
                <pre className="content">{chunk.content}</pre>
              </li>
            ))}
          </ol>
          <details>
            <summary>Markdown as ingested</summary>
            <pre className="content raw">{data.content}</pre>
          </details>
        </Section>
      )}
    </>
  );
}
