import { InvalidSpecError, runTask } from '@kb/content';
import { AppError } from '../errors.ts';
import { endLoad, type IngestionService } from '../ingestion/ingestion.service.ts';
import { WritePipeline } from '../ingestion/pipeline.ts';
import type { Logger } from '../logger.ts';
import { assertInScope, type Namespace, type NamespaceScope } from '../namespaces.ts';

export interface IngestOpenApiInput {
  spec: string;
  format: 'json' | 'yaml';
  namespace: Namespace;
}

export interface IngestOpenApiResult {
  upserted: number;
  unchanged: number;
  /** Operations with an operationId (upserted + unchanged). */
  total: number;
}

const BATCH = 24;

/**
 * POST /ingest/openapi: one document per operation with an operationId (slug = operationId),
 * through the pipeline in batches; unchanged operations are skipped by their content hash.
 */
export class OpenApiIngestion {
  constructor(
    private readonly ingestion: IngestionService,
    private readonly logger: Logger,
  ) {}

  /** Ingests the spec's operations; `scope` is the caller's (a namespace outside it is refused before the spec is parsed). */
  async ingest(input: IngestOpenApiInput, signal?: AbortSignal, scope: NamespaceScope = null): Promise<IngestOpenApiResult> {
    assertInScope(input.namespace, scope);
    let operations;
    try {
      // Off the server's thread: a large YAML spec parses for over a second.
      operations = (await runTask('parseSpec', { text: input.spec, format: input.format })).operations;
    } catch (error) {
      if (error instanceof InvalidSpecError) throw new AppError('BAD_REQUEST', `Invalid OpenAPI spec: ${error.message}`, { cause: error });
      throw error;
    }
    const result: IngestOpenApiResult = { upserted: 0, unchanged: 0, total: operations.length };
    let failed = 0;
    let firstError: Error | undefined;
    const documents = operations.map((op) => ({
      namespace: input.namespace,
      title: op.title,
      slug: op.operationId,
      content: op.markdown,
      metadata: op.metadata,
    }));
    const load = this.ingestion.bulkLoad();
    const pipeline = new WritePipeline();
    try {
      await this.ingestion.expectChunks(load, documents);
      for (let i = 0; i < operations.length; i += BATCH) {
        const write = this.ingestion
          .ingestMany(documents.slice(i, i + BATCH), signal, { method: 'openapi' })
          .then((outcomes) => {
            for (const outcome of outcomes) {
              if (outcome instanceof Error) {
                failed++;
                firstError ??= outcome;
              } else if (outcome.skipped) result.unchanged++;
              else result.upserted++;
            }
          });
        await pipeline.push(write);
      }
      await pipeline.drain();
    } catch (error) {
      // No write may still be running when this fails.
      await pipeline.settle();
      throw error;
    } finally {
      await endLoad(load, this.logger);
    }
    if (failed > 0) {
      this.logger.warn({ err: firstError, failed, total: operations.length }, 'some operations could not be ingested');
      if (firstError instanceof AppError) {
        throw new AppError(firstError.code, `${failed} of ${operations.length} operations could not be ingested (the others were): ${firstError.message}`, { cause: firstError });
      }
      throw firstError;
    }
    return result;
  }
}
