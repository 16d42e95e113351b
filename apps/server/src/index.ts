export { startService, StartupError } from './app.ts';
export type { RunningService } from './app.ts';
