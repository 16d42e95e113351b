import { router } from '../../trpc.ts';
import { createKey } from './create.ts';
import { listKeys } from './list.ts';
import { revokeKey } from './revoke.ts';

export const keysRouter = router({ create: createKey, list: listKeys, revoke: revokeKey });
