// Starts a worker-pool thread from the TypeScript sources (development and tests): registers
// tsx's loader, which a thread does not inherit from a runner such as vitest, then loads
// thread.ts. A build runs the compiled thread.js directly (see pool.ts).
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
