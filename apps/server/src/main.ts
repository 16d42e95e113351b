import { startService } from './app.ts';
import { runProcess } from './run-process.ts';

await runProcess((config, logger) => startService(config, { logger }));
