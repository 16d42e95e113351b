import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumAvailable as available, launchBrowser as launch, type RunningServer } from '@kb/browser-tests';

export { axeViolations, startServer } from '@kb/browser-tests';
export type { RunningServer };

export const ADMIN_ROOT = join(fileURLToPath(import.meta.url), '../..');
/** Screenshots land here (gitignored). */
export const SCREENSHOTS = join(ADMIN_ROOT, 'test-results');

export const ADMIN_PASSWORD = 'console-test-password';

export const chromiumAvailable = () => available("the admin console's");
export const launchBrowser = () => launch(SCREENSHOTS);
