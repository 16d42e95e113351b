import { ConfigError, loadConfig } from '@kb/config';
import { createLogger, EmbeddingMismatchError } from '@kb/core';
import { MigrationError } from '@kb/db';
import { StartupError } from './app.ts';
import { startWorker } from './worker.ts';

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
  const worker = await startWorker(config, { logger });
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal }, 'worker shutting down');
    worker.stop().then(
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
  if (error instanceof StartupError || error instanceof MigrationError || error instanceof EmbeddingMismatchError) {
    logger.fatal(error.message);
  } else {
    logger.fatal({ err: error }, 'the worker could not start');
  }
  process.exit(1);
}
