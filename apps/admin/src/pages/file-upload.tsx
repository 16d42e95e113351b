import { KbError, type IngestFileResult } from '@kb/sdk';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { describeError, type Namespace } from '../api.ts';
import { NamespaceSelect, Section } from '../ui.tsx';
import { TaskQueue, UPLOAD_ACCEPT, uploadFile } from '../upload.ts';

/** Files sent at once: the rest wait their turn. */
const PARALLEL_UPLOADS = 2;

type Phase =
  | { name: 'queued' }
  | { name: 'uploading'; loaded: number; total: number }
  | { name: 'processing' }
  | { name: 'done'; result: IngestFileResult }
  | { name: 'failed'; message: string };

interface Upload {
  key: number;
  file: File;
  namespace: Namespace;
  phase: Phase;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Files dropped on the Knowledge page (or chosen with the picker) go to POST /ingest/file, two
 * at a time, each with its own progress: bytes sent, then the service reading and embedding it,
 * then a link to the document or the service's reason for refusing it.
 */
export function FileUpload({ onUploaded, onOpen }: { onUploaded(): void; onOpen(id: string): void }) {
  const [namespace, setNamespace] = useState<Namespace>('user_docs');
  const [folder, setFolder] = useState('');
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const queue = useRef(new TaskQueue(PARALLEL_UPLOADS));
  const nextKey = useRef(0);

  function update(key: number, phase: Phase) {
    setUploads((all) => all.map((upload) => (upload.key === key ? { ...upload, phase } : upload)));
  }

  function add(files: readonly File[]) {
    const target = { namespace, ...(folder.trim() ? { folder: folder.trim() } : {}) };
    const added = files.map((file) => ({ key: nextKey.current++, file, namespace, phase: { name: 'queued' } as Phase }));
    setUploads((all) => [...added, ...all]);
    for (const upload of added) {
      queue.current.add(async () => {
        update(upload.key, { name: 'uploading', loaded: 0, total: upload.file.size });
        try {
          const result = await uploadFile(upload.file, {
            ...target,
            onProgress: (loaded, total) => update(upload.key, { name: 'uploading', loaded, total }),
            onSent: () => update(upload.key, { name: 'processing' }),
          });
          update(upload.key, { name: 'done', result });
          onUploaded();
        } catch (error) {
          // The service names the limit in bytes; the setting that raises it is the operator's.
          const hint = error instanceof KbError && error.status === 413 ? " The limit is the service's KB_MAX_FILE_BYTES setting." : '';
          update(upload.key, { name: 'failed', message: describeError(error) + hint });
        }
      });
    }
  }

  // Files dropped anywhere on the page are uploaded too, rather than opened by the browser in
  // place of the console (and what was on their way lost).
  const addLatest = useRef(add);
  addLatest.current = add;
  useEffect(() => {
    const carriesFiles = (event: globalThis.DragEvent) => event.dataTransfer?.types.includes('Files') === true;
    const over = (event: globalThis.DragEvent) => {
      if (carriesFiles(event)) event.preventDefault();
    };
    const dropped = (event: globalThis.DragEvent) => {
      if (!carriesFiles(event) || event.defaultPrevented) return;
      event.preventDefault();
      addLatest.current([...(event.dataTransfer?.files ?? [])]);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', dropped);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', dropped);
    };
  }, []);

  function drop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    add([...event.dataTransfer.files]);
  }

  return (
    <Section title="Upload files">
      <div className="row-form">
        <NamespaceSelect value={namespace} onChange={setNamespace} />
        <label>
          Folder (optional)
          <input name="upload-folder" value={folder} onChange={(event) => setFolder(event.target.value)} placeholder="none" />
        </label>
      </div>
      <label
        className={dragging ? 'dropzone dragging' : 'dropzone'}
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = 'copy';
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={drop}
      >
        <input
          type="file"
          multiple
          accept={UPLOAD_ACCEPT}
          className="visually-hidden"
          onChange={(event) => {
            add([...(event.target.files ?? [])]);
            // The same file may be chosen again (after fixing it).
            event.target.value = '';
          }}
        />
        <span className="dropzone-title">Drop files here, or choose files to upload</span>
        <span className="muted small">PDF, Word (.docx), HTML, Markdown or plain text; each becomes a document, found again by its file name.</span>
      </label>
      {uploads.length > 0 && (
        <ul className="uploads" aria-label="Uploads">
          {uploads.map((upload) => (
            <UploadRow key={upload.key} upload={upload} onOpen={onOpen} />
          ))}
        </ul>
      )}
    </Section>
  );
}

function UploadRow({ upload, onOpen }: { upload: Upload; onOpen(id: string): void }) {
  const { file, phase } = upload;
  return (
    <li data-upload={file.name} data-phase={phase.name}>
      <span className="upload-name break">
        {file.name} <span className="muted small">({formatBytes(file.size)})</span>
      </span>
      {phase.name === 'queued' && <span className="muted small">Waiting its turn…</span>}
      {phase.name === 'uploading' && (
        <span className="progress">
          <progress max={Math.max(phase.total, 1)} value={phase.loaded} aria-label={`Uploading ${file.name}`} aria-valuetext={`${formatBytes(phase.loaded)} of ${formatBytes(phase.total)} sent`} />
          <span>
            {formatBytes(phase.loaded)} of {formatBytes(phase.total)} sent
          </span>
        </span>
      )}
      {phase.name === 'processing' && (
        <span className="progress">
          <progress aria-label={`Processing ${file.name}`} aria-valuetext="Reading, chunking and embedding" />
          <span>Reading, chunking and embedding…</span>
        </span>
      )}
      {phase.name === 'done' && (
        <span className="success" role="status">
          {phase.result.skipped ? 'Unchanged (stored before with this content)' : 'Stored'} in {upload.namespace}
          {phase.result.pages !== undefined && ` (${phase.result.pages} ${phase.result.pages === 1 ? 'page' : 'pages'})`}:{' '}
          <a
            href={`/admin/knowledge/${encodeURIComponent(phase.result.documentId)}`}
            onClick={(event) => {
              if (event.metaKey || event.ctrlKey || event.shiftKey) return;
              event.preventDefault();
              onOpen(phase.result.documentId);
            }}
          >
            open the document
          </a>
        </span>
      )}
      {phase.name === 'failed' && (
        <span className="error" role="alert">
          {phase.message}
        </span>
      )}
    </li>
  );
}
