import { kbVitestConfig } from '@kb/vitest-config';
export default kbVitestConfig();
