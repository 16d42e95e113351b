import { kbVitestConfig } from '@kb/vitest-config';

// The browser tests start servers and Chromium once per file and drive one page through its steps.
// The preset's timeouts (120 s a test, 180 s a hook) leave room for a start-up on a busy machine.
export default kbVitestConfig({ include: ['test/**/*.test.ts'] });
