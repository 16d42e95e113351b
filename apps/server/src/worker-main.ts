import { runProcess } from './run-process.ts';
import { startWorker } from './worker.ts';

await runProcess((config, logger) => startWorker(config, { logger }));
