export { startService, StartupError } from './app.ts';
export type { RunningService } from './app.ts';
export { startWorker } from './worker.ts';
export type { RunningWorker } from './worker.ts';
