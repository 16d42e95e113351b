import { kbVitestConfig } from '@kb/vitest-config';
import { configDefaults } from 'vitest/config';

// test/backup.test.ts has a suite of its own (vitest.backups.config.ts).
export default kbVitestConfig({ exclude: [...configDefaults.exclude, 'test/backup.test.ts'] });
