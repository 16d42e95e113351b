import { router } from '../../trpc.ts';
import { ask } from './ask.ts';
import { sendFeedback } from './feedback.ts';

export const chatRouter = router({ ask, feedback: sendFeedback });
