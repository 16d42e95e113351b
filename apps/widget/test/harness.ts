import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { axeViolations as scan, chromiumAvailable as available, launchBrowser as launch, type AxeViolation } from '@kb/browser-tests';
import type { Page } from 'playwright-core';

export { startHostPage, startServer } from '@kb/browser-tests';

/** Screenshots land here (gitignored). */
export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'test-results');

export const chromiumAvailable = () => available("the assistant's");
export const launchBrowser = () => launch(SCREENSHOTS);
/** axe-core's serious and critical findings inside the assistant. */
export const axeViolations = (page: Page, include = 'kb-assistant'): Promise<AxeViolation[]> => scan(page, include);
