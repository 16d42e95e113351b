import type { Config } from '@kb/config';
import { createLogger, openStore as openConfiguredStore, type Logger, type Store } from '@kb/core';
import { StoreLockedError } from '@kb/db';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Opens the configured store for a command, migrated. An embedded store held by a running
 * server is never opened: the command stops and says what to do instead (exit code 2).
 * `checkEmbedding`: refuse a store whose vectors another embedder made (commands that embed).
 */
export async function openStore(
  config: Config,
  options: { logger?: Logger; checkEmbedding?: boolean; /** The command's own way round a locked store. */ whenLocked?: string } = {},
): Promise<Store> {
  try {
    return await openConfiguredStore(config, {
      // Commands print to stdout: their log stays quiet unless they say otherwise.
      logger: options.logger ?? createLogger({ level: 'silent' }),
      poolSize: 4,
      checkEmbedding: options.checkEmbedding ?? false,
      beforeVectorIndexBuild: () => process.stderr.write('Building the vector index (30-60 s per 100,000 chunks on PostgreSQL)...\n'),
    });
  } catch (error) {
    if (error instanceof StoreLockedError) throw new CliError(options.whenLocked ? `${error.message}\n${options.whenLocked}` : error.message, 2);
    throw error;
  }
}
