import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { pagePosition } from '../lists/keyset.ts';
import { normalizeQuery } from '../insights/query-log.ts';
import type { FeedbackEntry, FeedbackFilter, FeedbackRecord, FeedbackRepository, Rating } from './feedback.repository.ts';

/** Why a reader found an answer wanting (a thumbs-down's reasons). */
export const FEEDBACK_REASONS = ['incorrect', 'incomplete', 'not_what_i_asked', 'outdated', 'other'] as const;
export type FeedbackReason = (typeof FEEDBACK_REASONS)[number];
/** Longest note a vote may carry, in characters. */
export const MAX_FEEDBACK_NOTE_CHARS = 1_000;
export const DEFAULT_FEEDBACK_PAGE = 50;
export const MAX_FEEDBACK_PAGE = 200;

export interface FeedbackInput {
  messageId: string;
  rating: Rating;
  reasons?: readonly FeedbackReason[];
  note?: string | null;
}

/** A vote as callers see it. */
export interface FeedbackView {
  messageId: string;
  rating: Rating;
  reasons: string[];
  note: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FeedbackEntryView extends FeedbackView {
  conversationId: string;
  keyId: string | null;
  keyLabel: string | null;
  question: string;
  answer: string;
  sources: FeedbackEntry['sources'];
  namespaces: string[];
  /** Present (true) when the answer was cut short. */
  interrupted?: true;
}

export function toFeedbackView(record: FeedbackRecord): FeedbackView {
  return {
    messageId: record.messageId,
    rating: record.rating,
    reasons: record.reasons,
    note: record.note,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

/**
 * Readers' votes on answers: the key whose conversation it is may vote on each answer, the last
 * vote counting; any other caller is told the answer does not exist (ids leak nothing).
 * Administrators list the votes with their questions and answers.
 */
export class FeedbackService {
  constructor(private readonly repository: FeedbackRepository) {}

  async vote(caller: Principal, input: FeedbackInput): Promise<FeedbackView> {
    const answer = isUuid(input.messageId) ? await this.repository.findAnswer(input.messageId) : undefined;
    if (!answer || answer.role !== 'assistant' || answer.apiKeyId !== caller.keyId) {
      throw new AppError('NOT_FOUND', `No answer ${input.messageId}`);
    }
    const reasons = [...new Set(input.reasons ?? [])];
    if (input.rating === 'up' && reasons.length > 0) throw new AppError('BAD_REQUEST', 'reasons go with a thumbs-down (rating "down")');
    const note = input.note?.trim() ? input.note.trim() : null;
    const record = await this.repository.upsert({
      messageId: answer.messageId,
      conversationId: answer.conversationId,
      apiKeyId: caller.keyId,
      rating: input.rating,
      reasons,
      note,
      questionNormalized: normalizeQuery(answer.question ?? ''),
    });
    return toFeedbackView(record);
  }

  async list(
    filter: FeedbackFilter & { limit?: number; offset?: number; cursor?: string },
  ): Promise<{ feedback: FeedbackEntryView[]; total: number; take: number; skip: number; nextCursor: string | null }> {
    const take = Math.min(filter.limit ?? DEFAULT_FEEDBACK_PAGE, MAX_FEEDBACK_PAGE);
    const { offset: skip, after } = pagePosition(filter);
    const { limit: _limit, offset: _offset, cursor: _cursor, ...where } = filter;
    // Key ids are UUIDs: another value names no key (and must never reach a uuid cast).
    if (where.keyId !== undefined && !isUuid(where.keyId)) return { feedback: [], total: 0, take, skip, nextCursor: null };
    const { total, entries, nextCursor } = await this.repository.list(where, { limit: take, offset: skip, ...(after ? { after } : {}) });
    return {
      feedback: entries.map((entry) => ({
        ...toFeedbackView(entry),
        conversationId: entry.conversationId,
        keyId: entry.apiKeyId,
        keyLabel: entry.keyLabel,
        question: entry.question,
        answer: entry.answer,
        sources: entry.sources,
        namespaces: entry.namespaces,
        ...(entry.interrupted ? { interrupted: true as const } : {}),
      })),
      total,
      take,
      skip,
      nextCursor,
    };
  }
}
