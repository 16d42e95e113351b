import { htmlToMarkdown } from '@kb/content';
import { metrics } from '../telemetry/metrics.ts';
import { AppError } from '../errors.ts';
import {
  describeFetchFailure,
  FetchFailedError,
  FetchRefusedError,
  guardedFetch,
  InvalidUrlError,
  type GuardedFetchOptions,
} from '../fetch/index.ts';
import type { Logger } from '../logger.ts';
import { assertInScope, type Namespace, type NamespaceScope } from '../namespaces.ts';
import type { IngestionService, IngestResult } from './ingestion.service.ts';

export const ACCEPTED_PAGE_TYPES = ['text/html', 'application/xhtml+xml', 'text/markdown', 'text/plain'] as const;

export interface IngestUrlInput {
  url: string;
  namespace: Namespace;
  /** Defaults to the page's own title (HTML), its first heading (Markdown), or the final URL. */
  title?: string;
}

/** A URL fit for the log: any user:password part removed. */
function withoutCredentials(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return '[unparseable URL]';
  }
}

function firstHeading(markdown: string): string | null {
  const match = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(markdown);
  return match ? match[1]!.trim() : null;
}

/**
 * POST /ingest/url: fetch a page through the guarded fetcher, turn HTML into Markdown (main
 * content only), and ingest it through the pipeline with the final URL as its slug.
 */
export class UrlIngestion {
  constructor(
    private readonly ingestion: IngestionService,
    private readonly fetchOptions: Omit<GuardedFetchOptions, 'accept' | 'signal'>,
    private readonly logger: Logger,
  ) {}

  /** Fetches the page and ingests it; `scope` is the caller's (a namespace outside it is refused before anything is fetched). */
  async ingest(input: IngestUrlInput, signal?: AbortSignal, scope: NamespaceScope = null): Promise<IngestResult> {
    assertInScope(input.namespace, scope);
    let page;
    try {
      page = await guardedFetch(input.url, { ...this.fetchOptions, accept: ACCEPTED_PAGE_TYPES, signal });
    } catch (error) {
      if (error instanceof InvalidUrlError) throw new AppError('BAD_REQUEST', 'url must be an http or https URL', { cause: error });
      if (error instanceof FetchRefusedError || error instanceof FetchFailedError) {
        // The log has the detail (resolved addresses included); the caller is told the kind of failure.
        this.logger.warn({ url: withoutCredentials(input.url), reason: error.reason, message: error.message }, 'URL fetch refused or failed');
        const why = describeFetchFailure(error, { ...this.fetchOptions, accept: ACCEPTED_PAGE_TYPES });
        metrics.ingested('url', 'failed', 0);
        throw new AppError('UNPROCESSABLE_CONTENT', `The URL could not be fetched: ${why}`, { cause: error });
      }
      throw error;
    }
    let content: string;
    let pageTitle: string | null;
    if (page.contentType === 'text/html' || page.contentType === 'application/xhtml+xml') {
      const converted = htmlToMarkdown(page.body, { baseUrl: page.url });
      content = converted.markdown;
      pageTitle = converted.title;
    } else {
      content = page.body;
      pageTitle = page.contentType === 'text/markdown' ? firstHeading(page.body) : null;
    }
    return this.ingestion.ingest(
      {
        namespace: input.namespace,
        title: input.title ?? pageTitle ?? page.url,
        slug: page.url,
        content,
        metadata: { url: page.url, contentType: page.contentType },
      },
      signal,
      null,
      'url',
    );
  }
}
