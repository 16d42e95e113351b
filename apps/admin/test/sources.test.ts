import { join } from 'node:path';
import { htmlPage, sitemapXml, startFakeSite, type FakeSite } from '@kb/core/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, chromiumAvailable, launchBrowser, SCREENSHOTS, startServer, type RunningServer } from './harness.ts';

/** The Sources section: add a docs site served on loopback, watch its sync, read its failures, sync it again. */
describe.runIf(chromiumAvailable())('the Sources section in Chromium', () => {
  let site: FakeSite;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    site = await startFakeSite();
    for (let n = 0; n < 40; n++) {
      site.routes.set(`/docs/p${n}`, {
        body: htmlPage(`Topic ${n}`, `<p>Topic ${n} explains the ${['quota', 'backup', 'login', 'export'][n % 4]} settings in detail.</p><a href="/docs/p${(n + 1) % 40}">Next</a>`),
      });
    }
    site.routes.set('/', { body: htmlPage('Home', '<p>The documentation of the service.</p><a href="/docs/p0">Start</a>') });
    site.routes.set('/docs/p7', { status: 500, body: 'down', etag: false });
    site.routes.set('/sitemap.xml', { body: sitemapXml(Array.from({ length: 40 }, (_, n) => ({ loc: `${site.url}/docs/p${n}` }))), contentType: 'application/xml' });
    // A little crawl delay, so that the sync is seen running.
    site.routes.set('/robots.txt', { body: 'User-agent: *\nCrawl-delay: 0.05\n', contentType: 'text/plain' });
    [server, browser] = await Promise.all([
      startServer({ KB_ADMIN_PASSWORD: ADMIN_PASSWORD, KB_ALLOW_PRIVATE_URLS: 'true', KB_SOURCE_MIN_INTERVAL_MS: '0' }),
      launchBrowser(),
    ]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.url });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto('/admin/');
    await page.getByLabel('Admin password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await site?.close();
  });

  it('adds a site, shows its sync live to the end with its failures, and syncs it again', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Sources' }).click();
    await expect.poll(() => page.locator('main h1').textContent()).toBe('Sources');
    await page.getByText('No sources yet').waitFor();
    await page.getByLabel('Site address').fill(`${site.url}/docs/p0`);
    await page.getByLabel('Sitemap (optional)').fill(`${site.url}/sitemap.xml`);
    await page.getByRole('button', { name: 'Add site' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('first sync is queued');
    const row = page.locator('tr[data-source-id]').first();
    await row.waitFor();
    const seen: string[] = [];
    await expect
      .poll(
        async () => {
          const text = ((await row.textContent()) ?? '').replace(/\s+/g, ' ');
          seen.push(text);
          if (/syncing/.test(text) && !seen.includes('shot')) {
            seen.push('shot');
            await page.screenshot({ path: join(SCREENSHOTS, 'sources-1-syncing-desktop.png'), fullPage: true });
          }
          return /partial/.test(text) ? 'ended' : text;
        },
        { timeout: 90_000, interval: 100 },
      )
      .toBe('ended');
    expect(seen.some((text) => /syncing/.test(text))).toBe(true);
    expect(await row.textContent()).toMatch(/41\/41 pages: 40 updated, 0 unchanged, 0 removed, 1 failed/);
    await row.getByRole('button', { name: 'Show 1 failure' }).click();
    await expect.poll(() => row.locator('.failures').textContent()).toContain(`${site.url}/docs/p7: the server answered 500 Internal Server Error`);
    await page.screenshot({ path: join(SCREENSHOTS, 'sources-2-done-desktop.png'), fullPage: true });

    site.routes.set('/docs/p7', { body: htmlPage('Topic 7', '<p>Topic 7 is back.</p>') });
    await row.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(async () => ((await row.textContent()) ?? '').replace(/\s+/g, ' '), { timeout: 90_000, interval: 200 }).toMatch(/done.*41\/41 pages: 1 updated, 40 unchanged, 0 removed, 0 failed/);
    await page.screenshot({ path: join(SCREENSHOTS, 'sources-3-resynced-desktop.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 180_000);
});
