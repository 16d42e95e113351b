import { installTracingFromEnv } from './tracing.ts';

// First, before the worker's modules load: the PostgreSQL and Redis instrumentations patch those clients as they load.
const tracing = installTracingFromEnv('worker');
const { runProcess } = await import('./run-process.ts');
const { startWorker } = await import('./worker.ts');

await runProcess(async (config, logger) => {
  const worker = await startWorker(config, { logger });
  return {
    async stop() {
      await worker.stop();
      await tracing?.shutdown();
    },
  };
});
