export { FeedbackRepository } from './feedback.repository.ts';
export type { FeedbackFilter, Rating } from './feedback.repository.ts';
export { DEFAULT_FEEDBACK_PAGE, FEEDBACK_REASONS, FeedbackService, MAX_FEEDBACK_NOTE_CHARS, MAX_FEEDBACK_PAGE } from './feedback.service.ts';
export type { FeedbackEntryView, FeedbackInput, FeedbackReason, FeedbackView } from './feedback.service.ts';
