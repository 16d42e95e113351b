import type { Config } from '@kb/config';
import { AdminSessions } from '@kb/core';
import { CliError, openStore } from '../store.ts';

export const ADMIN_USAGE = `Usage:
  kb admin sessions end-all     end every admin session (console logins): each must log in again`;

export async function adminCommand(args: string[], config: Config, out: (line: string) => void): Promise<void> {
  if (args[0] !== 'sessions' || args[1] !== 'end-all' || args.length > 2) throw new CliError(`Unknown admin command "${args.join(' ')}"\n${ADMIN_USAGE}`);
  const store = await openStore(config, {
    whenLocked: 'Stop the server first, or change KB_ADMIN_PASSWORD and restart it: a new password ends every session too.',
  });
  try {
    const ended = await new AdminSessions(store.database.db, { ttlMs: config.security.sessionTtlMs }).endAll();
    out(`Ended ${ended} admin session${ended === 1 ? '' : 's'}: the console asks for the password again.`);
  } finally {
    await store.close();
  }
}
