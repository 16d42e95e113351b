import { kbVitestConfig } from '@kb/vitest-config';

// The browser tests start servers and Chromium once per file and drive one page through its steps.
export default kbVitestConfig({ include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 });
