import { kbVitestConfig } from '@kb/vitest-config';

// kb move, backup and restore between embedded stores and PostgreSQL: every test fills stores and
// runs several kb processes that open them, minutes by nature (the heaviest file of `pnpm test`
// when it was part of it), so a suite of its own (`pnpm --filter @kb/cli test:backups`, a step of
// .ci/run with its own bound).
export default kbVitestConfig({ include: ['test/backup.test.ts'] });
