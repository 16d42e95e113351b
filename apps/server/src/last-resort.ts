import { requestScope, type Logger } from '@kb/core';

/**
 * The last resort, once the service runs: a throw or rejection nothing handled is logged, with its
 * request id when it came from serving a request (whose response, if not yet sent, is a 500), and
 * the process keeps serving. Every path of a request has its own handling (a JSON error answer);
 * reaching here is a fault to fix, not a way to end the service for everyone else. Before the
 * service runs (`running()` false) the failure is a failed start: logged, and the process exits 1.
 */
export function installLastResortHandlers(logger: Logger, running: () => boolean): void {
  const handle = (kind: 'uncaught exception' | 'unhandled rejection') => (failure: unknown) => {
    const scope = requestScope.getStore();
    const log = scope?.log ?? logger;
    if (!running()) {
      log.fatal({ err: failure }, `${kind} while starting`);
      process.exit(1);
    }
    log.error({ err: failure }, `${kind}${scope ? ' while serving a request' : ''}: logged, and the service goes on serving`);
    try {
      scope?.fail();
    } catch (error) {
      log.error({ err: error }, 'could not answer the request after an uncaught failure');
    }
  };
  process.on('uncaughtException', handle('uncaught exception'));
  process.on('unhandledRejection', handle('unhandled rejection'));
}
