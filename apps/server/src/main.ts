import { installTracingFromEnv } from './tracing.ts';

// First, before the service's modules load: the PostgreSQL and Redis instrumentations patch those clients as they load.
const tracing = installTracingFromEnv('server');
const { startService } = await import('./app.ts');
const { runProcess } = await import('./run-process.ts');

/** The first admin key of a new store, on the terminal (stderr) and never in the log. */
function showFirstAdminKey(key: string): void {
  process.stderr.write(
    [
      '',
      'This store had no API key, so an admin key was made for it. It is shown this once:',
      '',
      `    ${key}`,
      '',
      'Use it as "Authorization: Bearer <key>"; create other keys with POST /api/v1/keys, and revoke this one when you no longer need it.',
      '',
      '',
    ].join('\n'),
  );
}

await runProcess(async (config, logger) => {
  const service = await startService(config, { logger, onFirstAdminKey: showFirstAdminKey });
  return {
    async stop() {
      await service.stop();
      await tracing?.shutdown();
    },
  };
});
