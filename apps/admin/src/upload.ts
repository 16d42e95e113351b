import { kbErrorFrom, KbNetworkError, type IngestFileResult } from '@kb/sdk';
import { SESSION_ENDED, type Namespace } from './api.ts';

/** The file types the service reads, for the file picker (a drop takes anything, and the service says what it refuses). */
export const UPLOAD_ACCEPT = '.pdf,.docx,.html,.htm,.xhtml,.md,.markdown,.txt,.text,application/pdf,text/html,text/markdown,text/plain';

export interface UploadOptions {
  namespace: Namespace;
  folder?: string;
  /** Bytes sent so far, as the browser sends them. */
  onProgress?(loaded: number, total: number): void;
  /** The last byte is sent: the service is now reading, chunking and embedding the file. */
  onSent?(): void;
}

/**
 * Sends one file to POST /api/v1/ingest/file as the body (its type, else untyped: the service
 * tells it by its name and content), with the session cookie. XMLHttpRequest rather than the SDK:
 * fetch reports no upload progress. Resolves with the service's result; rejects with the KbError
 * the SDK would (the service's message: 415 naming the types it reads, 413 over KB_MAX_FILE_BYTES,
 * 422 a PDF without text...), or a KbNetworkError when no answer came.
 */
export function uploadFile(file: File, options: UploadOptions): Promise<IngestFileResult> {
  const query = new URLSearchParams({ namespace: options.namespace, filename: file.name });
  if (options.folder) query.set('folder', options.folder);
  const url = `${window.location.origin}/api/v1/ingest/file?${query}`;
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.upload.onprogress = (event) => options.onProgress?.(event.loaded, event.lengthComputable ? event.total : file.size);
    request.upload.onload = () => options.onSent?.();
    request.onerror = () =>
      reject(
        new KbNetworkError(`The upload of ${file.name} broke off before the service answered (the connection closed: a file far over the size limit is cut off this way)`, {
          cause: undefined,
        }),
      );
    request.onload = () => {
      const headers = new Headers();
      for (const line of request.getAllResponseHeaders().trim().split(/\r?\n/)) {
        const at = line.indexOf(':');
        if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      let body: unknown = request.responseText;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // Not the service's JSON (a proxy's page): its text is the message.
      }
      if (request.status >= 200 && request.status < 300 && typeof body === 'object' && body !== null) {
        resolve(body as IngestFileResult);
        return;
      }
      if (request.status === 401) window.dispatchEvent(new Event(SESSION_ENDED));
      reject(kbErrorFrom(new Response(null, { status: request.status < 200 ? 502 : request.status, statusText: request.statusText, headers }), body));
    };
    request.send(file);
  });
}

/**
 * Runs tasks at most `concurrency` at a time, in the order they were added: uploads go one or two
 * at a time, so that each gets the bandwidth and the service is not handed every file at once. A
 * task's failure is its own (tasks catch their errors); the next one starts all the same.
 */
export class TaskQueue {
  private running = 0;
  private readonly waiting: Array<() => Promise<void>> = [];

  constructor(private readonly concurrency: number) {}

  add(task: () => Promise<void>): void {
    this.waiting.push(task);
    this.pump();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const task = this.waiting.shift()!;
      this.running++;
      void task()
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
