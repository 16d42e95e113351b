import { router } from '../../trpc.ts';
import { ask } from './ask.ts';

export const chatRouter = router({ ask });
