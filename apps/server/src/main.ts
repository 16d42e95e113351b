import { ConfigError, loadConfig } from '@kb/config';
import { createLogger, EmbeddingMismatchError } from '@kb/core';
import { MigrationError, StoreLockedError } from '@kb/db';
import { startService, StartupError } from './app.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ level: config.server.logLevel });

try {
  const service = await startService(config, { logger });
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
  if (
    error instanceof StoreLockedError ||
    error instanceof StartupError ||
    error instanceof MigrationError ||
    error instanceof EmbeddingMismatchError
  ) {
    logger.fatal(error.message);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    logger.fatal(`Port ${config.server.port} is in use: set PORT to a free port`);
  } else {
    logger.fatal({ err: error }, 'could not start');
  }
  process.exit(1);
}
