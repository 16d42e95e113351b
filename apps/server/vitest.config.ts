import { kbVitestConfig } from '@kb/vitest-config';
import { configDefaults } from 'vitest/config';

// test/replicas has a suite of its own (vitest.replicas.config.ts).
export default kbVitestConfig({ exclude: [...configDefaults.exclude, 'test/replicas/**'] });
