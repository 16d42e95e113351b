import { join } from 'node:path';
import { generateSpace, startFakeConfluence, type FakeConfluence } from '@kb/core/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, chromiumAvailable, launchBrowser, SCREENSHOTS, startServer, type RunningServer } from './harness.ts';

/**
 * The console end to end: the real server (its own process, embedded store, built-in embedder
 * and extractive answerer) serving the built app to headless Chromium, one page driven through
 * the sections in order. Each step saves screenshots at a laptop and a phone width.
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const WIKI_PAGES = 30;

const MARKDOWN = `# Rotating API keys

Rotate a key without downtime: create the new key with \`kb keys create\`, deploy it, then revoke the old one.

## Creating the new key

Open the admin console, create a key with the same limits, and copy its secret once.

## Revoking the old key

Revoke the old key from the keys list once no request uses it any more.
`;

describe.runIf(chromiumAvailable())('the admin console in Chromium', () => {
  let server: RunningServer;
  let confluence: FakeConfluence;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Problems the browser reported: console errors (a refused script or style among them) and uncaught errors. */
  const problems: string[] = [];

  beforeAll(async () => {
    confluence = await startFakeConfluence({ spaces: [generateSpace({ key: 'OPS', pages: WIKI_PAGES, pageBytes: 1_500, seed: 3 })], pageLimitMax: 3 });
    // Each listing of pages waits a little, so that the import runs long enough to be seen running.
    confluence.fault((path) => path.includes('/pages'), { delayMs: 250 }, 1_000);
    [server, browser] = await Promise.all([
      startServer({ KB_ADMIN_PASSWORD: ADMIN_PASSWORD, WIKI_BASE_URL: confluence.url, WIKI_EMAIL: confluence.email, WIKI_API_TOKEN: confluence.apiToken }),
      launchBrowser(),
    ]);
    context = await browser.newContext({ viewport: DESKTOP, baseURL: server.url });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    page.on('console', (message) => {
      // A 4xx the console asked for and shows (a wrong password) is logged by Chromium as a failed load: not a problem.
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await confluence?.close();
  });

  /** Screenshots of the page as it is now, at laptop width and on a phone (same session). */
  async function snap(name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
    const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    try {
      const small = await phone.newPage();
      await small.goto(page.url());
      await small.locator('main h1').first().waitFor();
      await small.waitForLoadState('networkidle');
      // Usable on a phone: nothing wider than the screen.
      const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} is wider than a phone`).toBeLessThanOrEqual(1);
      await small.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
    } finally {
      await phone.close();
    }
  }

  async function open(section: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section }).click();
    await expect.poll(() => page.locator('main h1').textContent()).toBe(section);
  }

  it('says how to enable sign-in on a server without an admin password', async () => {
    // The server writes "disabled" into the page when KB_ADMIN_PASSWORD is unset (its own tests
    // check that); here the page is given that answer.
    const other = await browser.newContext({ viewport: DESKTOP });
    try {
      const tab = await other.newPage();
      await tab.route('**/admin/keys', async (route) => {
        const response = await route.fetch();
        const body = (await response.text()).replace('content="enabled"', 'content="disabled"');
        await route.fulfill({ response, body });
      });
      await tab.goto(`${server.url}/admin/keys`);
      await tab.getByRole('heading', { name: 'Admin sign-in is not enabled' }).waitFor();
      expect(await tab.locator('main').textContent()).toContain('KB_ADMIN_PASSWORD');
      expect(await tab.getByLabel('Admin password').count()).toBe(0);
      await tab.screenshot({ path: join(SCREENSHOTS, '00-sign-in-not-enabled-desktop.png'), fullPage: true });
    } finally {
      await other.close();
    }
  });

  it('asks for the admin password, shows a wrong one refused in the service words, and signs in', async () => {
    await page.goto('/admin/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await snap('01-sign-in');
    await page.getByLabel('Admin password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Wrong admin password');
    await page.getByLabel('Admin password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    const cookies = await context.cookies();
    expect(cookies.find((cookie) => cookie.httpOnly && cookie.sameSite === 'Strict')).toBeDefined();
  });

  it('creates a key, showing its secret once with a copy button, and revokes it after asking', async () => {
    await page.getByLabel('Label', { exact: true }).fill('docs-site');
    await page.getByLabel('Requests / minute').fill('60');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secretBox = page.getByRole('region', { name: 'New key secret' });
    await secretBox.waitFor();
    const secret = await secretBox.getByLabel('Secret').inputValue();
    expect(secret).toMatch(/^kb_[A-Za-z0-9]{40}$/);
    expect(await secretBox.textContent()).toContain('only time it is shown');
    await secretBox.getByRole('button', { name: 'Copy' }).click();
    await secretBox.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const row = page.locator('tr', { hasText: 'docs-site' });
    expect(await row.textContent()).toContain('60 / min');
    expect(await row.textContent()).toContain(secret.slice(0, 8));
    expect(await row.textContent()).toContain('active');
    await snap('02-keys-created');

    // The key works until it is revoked.
    const call = () => fetch(`${server.url}/api/v1/search`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{"query":"keys"}' });
    expect((await call()).status).toBe(200);
    await secretBox.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByRole('region', { name: 'New key secret' }).count()).toBe(0);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Apps using it are refused at once.').waitFor();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await expect.poll(() => row.textContent()).toContain('revoked');
    expect((await call()).status).toBe(401);
    await snap('03-keys-revoked');
  });

  it("shows an API error in the service's own words", async () => {
    await page.getByLabel('Label', { exact: true }).fill('bad limits');
    await page.getByLabel('Requests / minute').fill('-5');
    await page.getByRole('button', { name: 'Create key' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain('rateLimitRpm');
    expect(text).toContain('400 BAD_REQUEST');
    expect(await page.locator('tr', { hasText: 'bad limits' }).count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, '04-api-error-desktop.png'), fullPage: true });
  });

  it('ingests pasted Markdown, then finds it in search and in the document list with its chunks', async () => {
    await open('Ingestion');
    const form = page.locator('section', { has: page.getByRole('heading', { name: 'Paste Markdown' }) });
    await form.getByLabel('Title').fill('Rotating API keys');
    await form.getByLabel('Slug (optional)').fill('guides/rotating-keys');
    await form.getByLabel('Markdown').fill(MARKDOWN);
    await form.getByRole('button', { name: 'Ingest Markdown' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toContain('Stored "Rotating API keys"');

    const spec = page.locator('section', { has: page.getByRole('heading', { name: 'Upload an OpenAPI spec' }) });
    await spec.getByLabel('Spec file (JSON or YAML)').setInputFiles({
      name: 'pets.yaml',
      mimeType: 'application/yaml',
      buffer: Buffer.from(
        'openapi: 3.0.3\ninfo: { title: Pets, version: "1" }\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      summary: List the pets\n      responses: { "200": { description: The pets } }\n',
      ),
    });
    await spec.getByRole('button', { name: 'Ingest spec' }).click();
    await expect.poll(() => spec.getByRole('status').textContent()).toContain('pets.yaml: 1 operation, 1 stored, 0 unchanged');

    // The service refuses to fetch a private address: its reason is shown.
    const url = page.locator('section', { has: page.getByRole('heading', { name: 'Ingest a page by URL' }) });
    await url.getByLabel('URL').fill('http://127.0.0.1:9/private');
    await url.getByRole('button', { name: 'Ingest URL' }).click();
    await expect.poll(() => url.getByRole('alert').textContent()).toMatch(/\[4\d\d [A-Z_]+\]$/);
    await snap('05-ingestion');

    await open('Playground');
    const search = page.locator('section', { has: page.getByRole('heading', { name: 'Search' }) });
    await search.getByLabel('Query').fill('revoke the old key');
    await search.getByRole('button', { name: 'Search' }).click();
    const first = search.locator('ol.results > li').first();
    await first.waitFor();
    expect(await first.textContent()).toContain('Rotating API keys');
    expect(await first.locator('.heading-path').textContent()).toMatch(/^Rotating API keys > /);
    expect(Number(await first.locator('.score').textContent())).toBeGreaterThan(0);
    await snap('06-playground-search');

    await open('Knowledge base');
    const userDocs = page.locator('[data-namespace="user_docs"]');
    await expect.poll(() => userDocs.textContent()).toMatch(/1 document(?!s)[1-9]\d* chunks/);
    const link = page.getByRole('button', { name: 'Rotating API keys' });
    await link.waitFor();
    await snap('07-knowledge-base');
    await link.click();
    await page.locator('ol.chunks > li').first().waitFor();
    const paths = await page.locator('ol.chunks .heading-path').allTextContents();
    expect(paths).toContain('Rotating API keys > Revoking the old key');
    await snap('08-document');
    await page.getByRole('button', { name: '← All documents' }).click();
  });

  it('streams a chat answer with its sources, continues the conversation, and shows the thread', async () => {
    await open('Playground');
    const chat = page.locator('section', { has: page.getByRole('heading', { name: 'Chat' }) });
    await chat.getByLabel('Question').fill('How do I rotate an API key?');
    const streamed = page.waitForResponse((response) => response.url().endsWith('/api/v1/chat'));
    await chat.getByRole('button', { name: 'Ask' }).click();
    const response = await streamed;
    expect(response.headers()['content-type']).toContain('text/event-stream');
    const answer = chat.locator('.answer').first();
    await expect.poll(() => answer.getAttribute('data-done'), { timeout: 30_000 }).toBe('true');
    expect((await answer.locator('.markdown').textContent())?.length).toBeGreaterThan(20);
    // The Markdown is rendered: the quoted command is code, not backticks.
    expect(await answer.locator('.markdown code').count()).toBeGreaterThan(0);
    expect(await answer.locator('.markdown').textContent()).not.toContain('`');
    expect(await answer.locator('.sources').textContent()).toContain('Rotating API keys');
    const conversation = await chat.locator('p.muted code').textContent();
    expect(conversation).toMatch(/^[0-9a-f-]{36}$/);

    await chat.getByLabel('Follow-up question').fill('And how do I revoke the old key?');
    await chat.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => chat.locator('.answer').nth(1).getAttribute('data-done'), { timeout: 30_000 }).toBe('true');
    expect(await chat.locator('p.muted code').textContent()).toBe(conversation);
    await page.screenshot({ path: join(SCREENSHOTS, '09-playground-chat-desktop.png'), fullPage: true });

    const faq = page.locator('section', { has: page.getByRole('heading', { name: 'FAQ' }) });
    await faq.getByLabel('Topic').fill('API keys');
    await faq.getByRole('button', { name: 'Make FAQ' }).click();
    await faq.locator('.faq .markdown').waitFor({ timeout: 30_000 });
    expect(await faq.locator('.faq').textContent()).toContain('Rotating API keys');
    await page.screenshot({ path: join(SCREENSHOTS, '10-playground-faq-desktop.png'), fullPage: true });

    await open('Conversations');
    const item = page.getByRole('button', { name: 'How do I rotate an API key?' });
    await item.waitFor();
    await snap('11-conversations');
    await item.click();
    await expect.poll(() => page.locator('.transcript > div').count()).toBe(4);
    expect(await page.locator('.transcript').textContent()).toContain('And how do I revoke the old key?');
    await page.screenshot({ path: join(SCREENSHOTS, '12-conversation-thread-desktop.png'), fullPage: true });
  });

  it('starts a wiki import and follows its progress to the end', async () => {
    await open('Ingestion');
    const form = page.locator('section', { has: page.getByRole('heading', { name: 'Import a wiki space' }) });
    // One refresh of the jobs list fails part-way (a restart, a proxy's blip): the list says so and goes on updating.
    let listings = 0;
    let refused = false;
    await page.route('**/api/v1/ingest/jobs', async (route) => {
      if (++listings === 2) {
        refused = true;
        return route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ message: 'The service is restarting', code: 'SERVICE_UNAVAILABLE' }) });
      }
      return route.continue();
    });
    await form.getByLabel('Space key').fill('OPS');
    await form.getByRole('button', { name: 'Start import' }).click();
    await expect.poll(() => form.getByRole('status').textContent()).toContain('queued');
    const row = page.locator('tr[data-job-id]').first();
    await row.waitFor();
    // The list updates itself: the job is seen part-way, then finished.
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          const text = (await row.textContent()) ?? '';
          seen.add(text.replace(/\s+/g, ' '));
          if (/running/.test(text) && /[1-9]\d*\/\d+ pages/.test(text) && !seen.has('shot')) {
            seen.add('shot');
            await page.screenshot({ path: join(SCREENSHOTS, '13-wiki-job-running-desktop.png'), fullPage: true });
          }
          return /done/.test(text) ? 'done' : text;
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe('done');
    expect([...seen].some((text) => /running/.test(text) && /\d+\/\d+ pages/.test(text))).toBe(true);
    expect(refused).toBe(true);
    await page.unroute('**/api/v1/ingest/jobs');
    expect(await page.locator('section', { has: page.getByRole('heading', { name: 'Jobs' }) }).getByText('The service is restarting').count()).toBe(0);
    // Chromium logs the refused listing; it was asked for.
    problems.splice(0, problems.length, ...problems.filter((problem) => !problem.includes('status of 503')));
    expect(await row.textContent()).toContain(`${WIKI_PAGES}/${WIKI_PAGES} pages: ${WIKI_PAGES} written`);

    // A job that fails shows why.
    await form.getByLabel('Space key').fill('GHOST');
    await form.getByRole('button', { name: 'Start import' }).click();
    const failed = page.locator('tr[data-job-id]').first();
    await expect.poll(() => failed.textContent(), { timeout: 30_000 }).toContain('failed');
    expect(await failed.getByRole('alert').textContent()).toContain('GHOST');
    await snap('14-wiki-jobs-done-and-failed');
  });

  it('pages through the imported documents, and deletes one after asking', async () => {
    await open('Knowledge base');
    await page.locator('[data-namespace="wiki"]').click();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect.poll(() => pager.textContent()).toContain(`1–20 of ${WIKI_PAGES}`);
    await pager.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => pager.textContent()).toContain(`21–${WIKI_PAGES} of ${WIKI_PAGES}`);
    expect(await page.locator('table.documents tbody tr').count()).toBe(WIKI_PAGES - 20);

    const title = (await page.locator('table.documents tbody tr button.link').first().textContent())!;
    await page.locator('table.documents tbody tr button.link').first().click();
    await page.getByRole('button', { name: 'Delete document' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    // Back at the list, which no longer holds it.
    await expect.poll(() => page.locator('[data-namespace="wiki"]').textContent()).toContain(`${WIKI_PAGES - 1} documents`);
    await page.getByLabel('Title or slug contains').fill(title);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No documents match.').waitFor();
  });

  it('lists the weakest queries as knowledge gaps', async () => {
    await page.goto('/admin/playground');
    const search = page.locator('section', { has: page.getByRole('heading', { name: 'Search' }) });
    await search.getByLabel('Query').fill('quarterly invoice export to spreadsheets');
    await search.getByRole('button', { name: 'Search' }).click();
    await search.locator('ol.results, p.muted').first().waitFor();
    await open('Knowledge gaps');
    await page.locator('table.gaps').waitFor();
    expect(await page.locator('table.gaps').textContent()).toContain('quarterly invoice export to spreadsheets');
    await snap('15-knowledge-gaps');
  });

  it('shows the first section under its own address for an address that names no section', async () => {
    await page.goto('/admin/nonsense');
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/keys');
  });

  it('shows a section that cannot render an answer as an error in place, never a blank page', async () => {
    // An answer of another shape than the console knows (a server of another version): a job without its progress.
    await page.route('**/api/v1/ingest/jobs', (route) =>
      route.fulfill({ json: { jobs: [{ id: '00000000-0000-4000-8000-000000000000', type: 'wiki', status: 'running', payload: {}, attempts: 1, createdAt: new Date().toISOString() }] } }),
    );
    try {
      await open('Ingestion');
      await expect.poll(() => page.locator('main').getByRole('alert').first().textContent()).toContain('This section could not be shown');
      // The menu is still there, and the other sections work.
      await open('Knowledge gaps');
      await page.locator('table.gaps').waitFor();
    } finally {
      await page.unroute('**/api/v1/ingest/jobs');
    }
    // React and the console log the failure; it was provoked.
    problems.splice(0, problems.length, ...problems.filter((problem) => !/progress|section failed to render|error occurred in/i.test(problem)));
  });

  it('sends an ended session back to sign-in, and signs out', async () => {
    // The session ends on the server's side (here: its cookie is gone): the next call gets 401.
    await context.clearCookies();
    await open('Keys').catch(() => undefined);
    await page.getByText('Your session has ended').waitFor();
    await page.getByLabel('Admin password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await context.cookies()).length).toBe(0);
    // Without a session, a deep link shows the sign-in form, not a broken page.
    await page.goto('/admin/knowledge');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('says why on the sign-in form when the service fails the first check for another reason than a session', async () => {
    await page.route('**/api/v1/keys', (route) =>
      route.fulfill({ status: 503, json: { message: 'The database is unavailable; try again later.', code: 'SERVICE_UNAVAILABLE' } }),
    );
    try {
      await page.goto('/admin/');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('The database is unavailable; try again later. [503 SERVICE_UNAVAILABLE]');
    } finally {
      await page.unroute('**/api/v1/keys');
    }
    // Chromium logs the provoked 503 as a failed load.
    expect(problems.filter((problem) => !/status of 503/.test(problem))).toEqual([]);
  });
});
