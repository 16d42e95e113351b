import { router } from '../../trpc.ts';
import { listConversations } from './list.ts';

export const conversationsRouter = router({ list: listConversations });
