import { convertFileOffThread, FileConversionError, type ConvertedFile, type FileFormat } from '@kb/content';
import { AppError, type AppErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { metrics } from '../telemetry/metrics.ts';
import { assertInScope, type Namespace, type NamespaceScope } from '../namespaces.ts';
import type { IngestionService, IngestResult } from './ingestion.service.ts';

export interface IngestFileInput {
  namespace: Namespace;
  bytes: Uint8Array;
  /** The declared media type (the part's or the body's Content-Type). */
  mediaType?: string | undefined;
  /** The file's name (a part's filename, or the `filename` parameter). */
  filename?: string | undefined;
  /** Defaults to the title the file gives itself (PDF metadata, an HTML title, the first heading), else its name. */
  title?: string | undefined;
  /** Deduplication key; defaults to the file's name, else the title. */
  slug?: string | undefined;
  /** The file's address: the document's link, which citations point at (a PDF's with `#page=N`). */
  url?: string | undefined;
  folder?: string | undefined;
}

export interface IngestFileResult extends IngestResult {
  format: FileFormat;
  /** A PDF's pages. */
  pages?: number;
}

/** One file of several: its result, or why it was refused (the others are ingested all the same). */
export type FileOutcome = ({ filename?: string } & IngestFileResult) | { filename?: string; error: AppError };

/** The status of each way a file can be refused. */
const REFUSAL_CODES: Record<FileConversionError['kind'], AppErrorCode> = {
  unsupported: 'UNSUPPORTED_MEDIA_TYPE',
  mismatch: 'UNPROCESSABLE_CONTENT',
  'no-text': 'UNPROCESSABLE_CONTENT',
  encrypted: 'UNPROCESSABLE_CONTENT',
  corrupt: 'UNPROCESSABLE_CONTENT',
  limits: 'UNPROCESSABLE_CONTENT',
};

/** A file's refusal as the service's error, naming the file when it has a name. */
export function fileRefusal(error: FileConversionError, filename: string | undefined): AppError {
  return new AppError(REFUSAL_CODES[error.kind], filename ? `${filename}: ${error.message}` : error.message, { cause: error });
}

/**
 * POST /ingest/file: a file (PDF, Word, HTML, Markdown or text) converted to Markdown in the
 * files worker pool (bounded in time and memory), then ingested through the pipeline like any
 * Markdown document: upserted by slug, skipped when its Markdown and metadata are unchanged.
 * A file that cannot be converted is refused with the reason, and nothing is written.
 */
export class FileIngestion {
  constructor(
    private readonly ingestion: IngestionService,
    private readonly maxFileBytes: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Several files with the same namespace and folder, one after another (the worker converts one
   * file at a time anyway): each file's result, or the error that refused it. A store that
   * cannot be reached, or the request going away, ends the whole request.
   */
  async ingestEach(inputs: readonly IngestFileInput[], signal?: AbortSignal, scope: NamespaceScope = null): Promise<FileOutcome[]> {
    const outcomes: FileOutcome[] = [];
    for (const input of inputs) {
      const named = input.filename !== undefined ? { filename: input.filename } : {};
      try {
        outcomes.push({ ...named, ...(await this.ingest(input, signal, scope)) });
      } catch (error) {
        if (signal?.aborted || !(error instanceof AppError) || error.status >= 500) throw error;
        outcomes.push({ ...named, error });
      }
    }
    return outcomes;
  }

  async ingest(input: IngestFileInput, signal?: AbortSignal, scope: NamespaceScope = null): Promise<IngestFileResult> {
    assertInScope(input.namespace, scope);
    if (input.bytes.length > this.maxFileBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${input.filename ?? 'The file'} is larger than the limit of ${this.maxFileBytes} bytes (KB_MAX_FILE_BYTES)`);
    }
    let converted: ConvertedFile;
    try {
      converted = await convertFileOffThread({ bytes: input.bytes, mediaType: input.mediaType, filename: input.filename });
    } catch (error) {
      if (!(error instanceof FileConversionError)) throw error;
      this.logger.info({ filename: input.filename, mediaType: input.mediaType, kind: error.kind, reason: error.message }, 'file refused');
      metrics.ingested('file', 'failed', 0);
      throw fileRefusal(error, input.filename);
    }
    signal?.throwIfAborted();
    const title = input.title ?? converted.title ?? input.filename;
    if (title === undefined || title.trim() === '') {
      throw new AppError('BAD_REQUEST', 'title is required: the file has no title of its own and no file name');
    }
    const metadata: Record<string, unknown> = { format: converted.format };
    if (input.url !== undefined) metadata.url = input.url;
    if (input.filename !== undefined) metadata.filename = input.filename;
    if (converted.pages !== undefined) metadata.pages = converted.pages;
    const result = await this.ingestion.ingest(
      {
        namespace: input.namespace,
        title: title.trim(),
        slug: input.slug ?? input.filename ?? title.trim(),
        content: converted.markdown,
        metadata,
        ...(input.folder !== undefined ? { folder: input.folder } : {}),
      },
      signal,
      null,
      'file',
    );
    return { ...result, format: converted.format, ...(converted.pages !== undefined ? { pages: converted.pages } : {}) };
  }
}
