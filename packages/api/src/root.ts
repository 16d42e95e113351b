import { authRouter } from './routers/auth/router.ts';
import { keysRouter } from './routers/keys/router.ts';
import { router } from './trpc.ts';

export const appRouter = router({
  auth: authRouter,
  keys: keysRouter,
});

export type AppRouter = typeof appRouter;
