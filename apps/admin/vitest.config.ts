import { kbVitestConfig } from '@kb/vitest-config';

// One server and one browser per file; the pages are visited in order. The browser files run one
// at a time: each starts a server and Chromium, and two at once on a small machine starve both.
export default kbVitestConfig({ include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000, fileParallelism: false });
