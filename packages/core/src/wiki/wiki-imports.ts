import { AppError } from '../errors.ts';
import { assertInScope, type NamespaceScope } from '../namespaces.ts';
import type { JobPayload } from '../jobs/catalog.ts';
import { toJobView, type JobsRepository, type JobView } from '../jobs/jobs.repository.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { missingWikiSettings, type WikiSettings } from './wiki-import.ts';

/** The job list shows this many jobs, newest first. */
export const JOB_LIST_LIMIT = 100;

/** Accepting wiki imports and listing jobs: the API's side of background ingestion. */
export class WikiImports {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly queue: JobQueue,
    private readonly settings: WikiSettings,
    private readonly logger: Logger,
  ) {}

  /**
   * Records a wiki import job and queues it. The job is recorded first, so a queue that cannot
   * take it leaves a failed job behind (and a 503), never a lost request.
   */
  async submit(
    payload: JobPayload<'wiki'>,
    scope: NamespaceScope = null,
    origin: { requestId?: string } = {},
  ): Promise<{ jobId: string; status: 'pending' }> {
    assertInScope(payload.namespace, scope);
    const missing = missingWikiSettings(this.settings);
    if (missing.length > 0) {
      throw new AppError('SERVICE_UNAVAILABLE', `Wiki import is not configured: set ${missing.join(', ')}`);
    }
    const job = await this.jobs.create('wiki', { spaceKey: payload.spaceKey, namespace: payload.namespace });
    try {
      await this.queue.enqueue({ id: job.id, type: 'wiki', requestId: origin.requestId });
    } catch (error) {
      this.logger.error({ err: error, jobId: job.id }, 'could not queue a job');
      await this.jobs.fail(job.id, 'The job queue was unavailable; submit the import again').catch(() => undefined);
      throw new AppError('SERVICE_UNAVAILABLE', 'The job queue is unavailable; try again later', { cause: error });
    }
    return { jobId: job.id, status: 'pending' };
  }

  async list(): Promise<JobView[]> {
    return (await this.jobs.listRecent(JOB_LIST_LIMIT)).map(toJobView);
  }
}
