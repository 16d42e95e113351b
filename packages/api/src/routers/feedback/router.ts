import { router } from '../../trpc.ts';
import { listFeedback } from './list.ts';

export const feedbackRouter = router({ list: listFeedback });
