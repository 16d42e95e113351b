import { router } from '../../trpc.ts';
import { getConversation } from './get.ts';
import { listConversations } from './list.ts';

export const conversationsRouter = router({ list: listConversations, get: getConversation });
