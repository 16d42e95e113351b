/**
 * The job catalog: every kind of background job the service runs, with the schema of its
 * payload. The API validates a payload against it before a job is created, and the runner
 * validates it again before the job runs (a queue is a trust boundary: a payload may come from an
 * older version of the service, or from someone with access to Redis).
 */
import { z } from 'zod';
import { NAMESPACES } from '../namespaces.ts';

/**
 * A Confluence space key: letters, digits and underscores for global spaces, `~` followed by an
 * account id or user name for personal spaces.
 */
export const spaceKeySchema = z
  .string({ message: 'spaceKey must be a string' })
  .trim()
  .min(1, 'spaceKey must not be empty')
  .max(255, 'spaceKey must be at most 255 characters')
  .regex(/^~?[A-Za-z0-9_.:-]+$/, 'spaceKey may contain only letters, digits, "_", ".", ":", "-" and a leading "~"');

export const JOB_CATALOG = {
  /** Imports every page of a wiki (Confluence) space into a namespace. */
  wiki: z.object({
    spaceKey: spaceKeySchema,
    namespace: z.enum(NAMESPACES),
  }),
  /** Syncs a source (a website, ...) into its namespace; its settings are read from the source. */
  'source-sync': z.object({
    sourceId: z.uuid(),
    /** What started it: a request (`manual`) or the source's schedule. */
    trigger: z.enum(['manual', 'schedule']),
  }),
} as const;

export type JobType = keyof typeof JOB_CATALOG;
export type JobPayload<T extends JobType = JobType> = z.infer<(typeof JOB_CATALOG)[T]>;

export function isJobType(value: string): value is JobType {
  return Object.hasOwn(JOB_CATALOG, value);
}

export class InvalidJobPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidJobPayloadError';
  }
}

/** Validates a stored or queued payload; throws InvalidJobPayloadError naming what is wrong. */
export function parseJobPayload<T extends JobType>(type: T, payload: unknown): JobPayload<T> {
  const result = JOB_CATALOG[type].safeParse(payload);
  if (!result.success) {
    const detail = result.error.issues.map((issue) => `${issue.path.join('.') || 'payload'}: ${issue.message}`).join('; ');
    throw new InvalidJobPayloadError(`Invalid ${type} job payload (${detail})`);
  }
  return result.data as JobPayload<T>;
}
