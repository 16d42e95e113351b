import { router } from '../../trpc.ts';
import { createKey } from './create.ts';
import { listKeys } from './list.ts';
import { revokeKey } from './revoke.ts';
import { updateKey } from './update.ts';

export const keysRouter = router({ create: createKey, list: listKeys, update: updateKey, revoke: revokeKey });
