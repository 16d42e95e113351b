import { kbVitestConfig } from '@kb/vitest-config';

// One server and one browser for the file; the pages are visited in order.
export default kbVitestConfig({ include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 });
