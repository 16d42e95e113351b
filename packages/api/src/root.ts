import { assistantRouter } from './routers/assistant/router.ts';
import { authRouter } from './routers/auth/router.ts';
import { chatRouter } from './routers/chat/router.ts';
import { context } from './routers/context/context.ts';
import { conversationsRouter } from './routers/conversations/router.ts';
import { documentsRouter } from './routers/documents/router.ts';
import { faqRouter } from './routers/faq/router.ts';
import { feedbackRouter } from './routers/feedback/router.ts';
import { ingestRouter } from './routers/ingest/router.ts';
import { insightsRouter } from './routers/insights/router.ts';
import { keysRouter } from './routers/keys/router.ts';
import { search } from './routers/search/search.ts';
import { sourcesRouter } from './routers/sources/router.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  auth: authRouter,
  keys: keysRouter,
  ingest: ingestRouter,
  search,
  context,
  chat: chatRouter,
  conversations: conversationsRouter,
  faq: faqRouter,
  documents: documentsRouter,
  sources: sourcesRouter,
  insights: insightsRouter,
  feedback: feedbackRouter,
  assistant: assistantRouter,
});

export type AppRouter = typeof appRouter;
