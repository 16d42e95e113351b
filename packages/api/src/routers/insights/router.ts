import { router } from '../../trpc.ts';
import { knowledgeGaps } from './gaps.ts';

export const insightsRouter = router({ gaps: knowledgeGaps });
