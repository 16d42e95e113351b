import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Screenshots land here (gitignored). */
export const SCREENSHOTS = join(HERE, '..', 'test-results');

/** Debian's chromium by default; KB_CHROMIUM_PATH points elsewhere. */
export const CHROMIUM_PATH = process.env.KB_CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Whether the browser tests can run: skipped with a warning on a machine without Chromium,
 * except in CI, which must have it (.ci/run installs it), as the admin console's are.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  const hint = `install Debian's chromium package (apt-get install chromium) or set KB_CHROMIUM_PATH`;
  if (process.env.CI === 'true') throw new Error(`Chromium is required in CI but there is none at ${CHROMIUM_PATH}: ${hint}`);
  console.warn(`No Chromium at ${CHROMIUM_PATH}: the assistant's browser tests are skipped (${hint}).`);
  return false;
}

export async function launchBrowser(): Promise<Browser> {
  await mkdir(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    // Chromium's sandbox cannot start as root (CI runs as root).
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown; failureSummary?: string }>;
}

/**
 * axe-core's findings on the page (it reads open shadow roots), serious and critical ones. Run
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function axeViolations(page: Page, include = 'kb-assistant'): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (selector) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ include: [selector] }, { resultTypes: ['violations'] });
    return result.violations;
  }, include);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
