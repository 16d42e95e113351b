import { kbVitestConfig } from '@kb/vitest-config';

// The replica tests start PostgreSQL clusters of their own: minutes by nature, so a suite of their
// own (`pnpm --filter @kb/server test:replicas`, a step of .ci/run), not part of `pnpm test`.
export default kbVitestConfig({ include: ['test/replicas/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 });
