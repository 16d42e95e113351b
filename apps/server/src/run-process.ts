import { ConfigError, loadConfig, type Config } from '@kb/config';
import { createLogger, EmbeddingMismatchError, type Logger } from '@kb/core';
import { MigrationError, StoreLockedError } from '@kb/db';
import { StartupError } from './app.ts';
import { installLastResortHandlers } from './last-resort.ts';

/**
 * The life of a server or worker process: parse the configuration (a bad one exits 1 naming
 * every bad variable), start, and stop gracefully on SIGTERM or SIGINT (exit 0, or 1 if stopping
 * failed). A start-up failure the operator can act on is logged as its message alone. Once
 * started, an uncaught throw or rejection is logged and the process goes on (last-resort.ts).
 */
export async function runProcess(start: (config: Config, logger: Logger) => Promise<{ stop(): Promise<void> }>): Promise<void> {
  let config: Config;
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
  // Signals are handled from before the start: a SIGTERM sent as soon as the process says it
  // listens (an orchestrator's, a script's) stops it gracefully once started, instead of killing it.
  let running: { stop(): Promise<void> } | undefined;
  let signalled = false;
  const stop = (service: { stop(): Promise<void> }) =>
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        process.exit(1);
      },
    );
  const shutdown = (signal: string) => {
    if (signalled) {
      // A second signal while still starting: no waiting for the start to end.
      if (!running) process.exit(1);
      return;
    }
    signalled = true;
    logger.info({ signal }, running ? 'shutting down' : 'shutting down once started');
    if (running) void stop(running);
  };
  // What escaped every other handling is logged, not the end of the process (last-resort.ts).
  installLastResortHandlers(logger, () => running !== undefined);
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  try {
    running = await start(config, logger);
    if (signalled) void stop(running);
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
}
