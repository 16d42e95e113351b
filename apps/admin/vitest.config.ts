import { kbVitestConfig } from '@kb/vitest-config';

// One server and one browser per file; the pages are visited in order. The browser files run one
// at a time: each starts a server and Chromium, and two at once on a small machine starve both.
// The preset's timeouts (120 s a test, 180 s a hook) leave room for a start-up on a busy machine.
export default kbVitestConfig({ include: ['test/**/*.test.ts'], fileParallelism: false });
