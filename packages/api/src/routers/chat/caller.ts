import type { ChatCaller } from '@kb/core';
import type { RequestContext } from '../../context.ts';

/** The chat service's view of an authenticated caller: a key, or an admin session. */
export function chatCaller(ctx: RequestContext): ChatCaller {
  const caller = ctx.caller;
  if (caller.kind === 'key') return { keyId: caller.key.id, admin: caller.key.admin };
  return { keyId: null, admin: caller.kind === 'session' };
}
