import { join } from 'node:path';
import { createKbClient, type KbClient } from '@kb/sdk';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, axeViolations, chromiumAvailable, launchBrowser, SCREENSHOTS, startServer, type RunningServer } from './harness.ts';

/**
 * The console's keys of both kinds and its Feedback section, end to end: the real server (its
 * own process, embedded store), headless Chromium signed in with the admin password, and the
 * service called over HTTP with the keys the console made, as the apps holding them would.
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const DOCS_ORIGIN = 'https://docs.example.com';

// A step may wait on a streamed answer on a busy machine.
describe.runIf(chromiumAvailable())('keys and feedback in the console', { timeout: 120_000 }, () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** The service as a script holding the store's first admin key sees it. */
  let admin: KbClient;
  let publishableKey = '';
  let scopedSecret = '';
  const problems: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ KB_ADMIN_PASSWORD: ADMIN_PASSWORD }), launchBrowser()]);
    const firstKey = /^\s+(kb_[A-Za-z0-9]{40})$/m.exec(server.stderr())?.[1];
    expect(firstKey, 'the new store shows its first admin key').toBeDefined();
    admin = createKbClient({ baseUrl: server.url, apiKey: firstKey! });
    await admin.ingest.markdown({
      title: 'Rotating API keys',
      namespace: 'user_docs',
      content: '# Rotating API keys\n\nRotate a key without downtime: create the new key, deploy it, then revoke the old one.\n',
      metadata: { url: 'https://docs.example.com/guides/rotating-keys' },
    });
    await admin.ingest.markdown({ title: 'Deploying the service', namespace: 'tech_docs', content: '# Deploying the service\n\nRun the container image behind a proxy.\n' });

    context = await browser.newContext({ viewport: DESKTOP, baseURL: server.url });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    page = await context.newPage();
    page.on('console', (message) => {
      // 4xx answers the console asked for and shows are logged by Chromium as failed loads.
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto('/admin/keys');
    await page.getByLabel('Admin password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Screenshots at laptop width and on a phone (same session), and nothing wider than the phone. */
  async function snap(name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
    const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true, storageState: await context.storageState() });
    try {
      const small = await phone.newPage();
      await small.goto(page.url());
      await small.locator('main h2').first().waitFor();
      await small.waitForLoadState('networkidle');
      const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} is wider than a phone`).toBeLessThanOrEqual(1);
      await small.screenshot({ path: join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
    } finally {
      await phone.close();
    }
  }

  async function expectAccessible(): Promise<void> {
    const violations = await axeViolations(page, 'main');
    expect(violations.map((violation) => `${violation.id}: ${violation.help} (${JSON.stringify(violation.nodes.map((node) => node.target))})`)).toEqual([]);
  }

  async function open(section: string): Promise<void> {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section }).click();
    await expect.poll(() => page.locator('main h1').textContent()).toBe(section);
  }

  const createForm = () => page.locator('section', { has: page.getByRole('heading', { name: 'Create a key' }) });

  it('checks a publishable key’s origins before sending, then creates it and shows its snippet to copy', async () => {
    const form = createForm();
    await form.getByRole('radio', { name: /^Publishable/ }).check();
    // The documented budgets are filled in.
    expect(await form.getByLabel('Questions a visitor / minute').inputValue()).toBe('10');
    expect(await form.getByLabel('Questions a visitor / day').inputValue()).toBe('100');
    expect(await form.getByLabel('Answers a day (whole key)').inputValue()).toBe('1000');
    await form.getByLabel('Label', { exact: true }).fill('docs assistant');
    await form.getByLabel('Allowed origins').fill('docs.example.com\nhttps://*.com');
    await form.getByRole('button', { name: 'Create key' }).click();
    // Said in words, by the field, which has the focus; nothing was sent.
    const origins = form.getByLabel('Allowed origins');
    await expect.poll(() => origins.getAttribute('aria-invalid')).toBe('true');
    const described = await origins.getAttribute('aria-describedby');
    const problem = await page.locator(`[id="${described!.split(' ').at(-1)}"]`).textContent();
    expect(problem).toContain('"docs.example.com" is not an origin');
    expect(problem).toContain('a wildcard needs a domain of at least two labels');
    expect(await form.getByRole('alert').textContent()).toContain('Choose the namespaces its pages may read');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('origins');
    expect((await admin.keys.list()).keys.some((key) => key.label === 'docs assistant')).toBe(false);
    await expectAccessible();
    await page.screenshot({ path: join(SCREENSHOTS, '20-key-form-problems-desktop.png'), fullPage: true });

    await origins.fill(`${DOCS_ORIGIN}\nhttps://*.Example.org:443\nhttp://localhost:*`);
    await form.getByRole('group', { name: 'Namespaces' }).getByRole('checkbox', { name: 'user_docs' }).check();
    // From the keyboard: Enter in a field submits the form.
    await form.getByLabel('Label', { exact: true }).press('Enter');

    // The key's own page: created, the key whole, the snippet to copy.
    await page.getByText('Key "docs assistant" created').waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/keys\/[0-9a-f-]{36}$/);
    const snippet = await page.getByLabel('Embed snippet').inputValue();
    const match = /^<script src="(.+)\/widget\/v1\/kb-assistant\.js" data-key="(kb_pub_[A-Za-z0-9]{40})" defer><\/script>$/.exec(snippet);
    expect(match?.[1]).toBe(server.url);
    publishableKey = match![2]!;
    await page.getByRole('button', { name: 'Copy snippet' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    const facts = page.locator('dl.facts');
    expect(await facts.textContent()).toContain(publishableKey);
    expect(await facts.textContent()).toContain(`from ${DOCS_ORIGIN}, https://*.example.org, http://localhost:*`);
    expect(await facts.textContent()).toContain('a visitor: 10 / min, 100 / day');
    expect(await facts.textContent()).toContain('answers: 1,000 / day');

    // The service holds what the form said, normalised.
    const stored = (await admin.keys.list()).keys.find((key) => key.key === publishableKey)!;
    expect(stored).toMatchObject({ kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [DOCS_ORIGIN, 'https://*.example.org', 'http://localhost:*'], visitorRateLimitRpm: 10, visitorRateLimitRpd: 100, dailyAnswerLimit: 1000 });

    await expectAccessible();
    await snap('22-publishable-key');

    // The list shows the key whole, its kind and its scope.
    await page.getByRole('button', { name: '← All keys' }).click();
    const row = page.locator('tr', { hasText: 'docs assistant' });
    expect(await row.textContent()).toContain(publishableKey);
    expect(await row.locator('td[data-label="Kind"]').textContent()).toBe('publishable');
    expect(await row.locator('td[data-label="Scope"]').textContent()).toContain('user_docs');
  });

  it('runs the assistant with the new key as a live preview on its page', async () => {
    await page.getByRole('link', { name: 'Edit docs assistant' }).click();
    // The preview is the element pages embed, with the console's origin (always allowed).
    const launcher = page.locator('.preview-slot').getByRole('button', { name: 'Try the assistant' });
    await launcher.click();
    const dialog = page.getByRole('dialog', { name: 'Ask the docs (preview)' });
    try {
      await dialog.getByRole('textbox', { name: 'Your question' }).fill('How do I rotate a key?');
      await dialog.getByRole('button', { name: 'Send' }).click();
      const answer = dialog.getByRole('article', { name: 'Answer' }).first();
      await expect.poll(() => answer.getByRole('region', { name: 'Sources' }).textContent(), { timeout: 60_000 }).toContain('Rotating API keys');
    } finally {
      await page.screenshot({ path: join(SCREENSHOTS, '21-publishable-key-preview-desktop.png'), fullPage: true });
      await page.keyboard.press('Escape');
    }
    await expect.poll(() => dialog.isVisible()).toBe(false);
    // Its focus went back to the button that opened it.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('KB-ASSISTANT');
    expect(await page.getByRole('link', { name: 'Open the preview page' }).getAttribute('href')).toBe(`/?key=${publishableKey}`);
    await page.getByRole('button', { name: '← All keys' }).click();
  });

  it("edits a publishable key's limits: 0 blocks its visitors, and a limit the service refuses is said in its words", async () => {
    await page.getByRole('link', { name: 'Edit docs assistant' }).click();
    const form = page.locator('section', { has: page.getByRole('heading', { name: 'Change the key' }) });
    await form.getByLabel('Questions a visitor / minute').fill('-1');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => form.getByRole('alert').textContent()).toMatch(/visitorRateLimitRpm.*\[400 BAD_REQUEST\]/);

    const search = () =>
      fetch(`${server.url}/api/v1/search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${publishableKey}`, origin: DOCS_ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'rotate' }),
      });
    expect((await search()).status).toBe(200);

    await form.getByLabel('Questions a visitor / minute').fill('0');
    await form.getByLabel('Answers a day (whole key)').fill('');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByText('Saved.').waitFor();
    expect(await form.getByRole('alert').count()).toBe(0);
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain('a visitor: 0 / min, 100 / day');
    expect(await page.locator('dl.facts').textContent()).toContain('answers: unlimited / day');
    const stored = (await admin.keys.list()).keys.find((key) => key.key === publishableKey)!;
    expect(stored).toMatchObject({ visitorRateLimitRpm: 0, visitorRateLimitRpd: 100, dailyAnswerLimit: null, allowedOrigins: [DOCS_ORIGIN, 'https://*.example.org', 'http://localhost:*'] });
    const blocked = await search();
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).not.toBeNull();
    await page.screenshot({ path: join(SCREENSHOTS, '23-key-limits-saved-desktop.png'), fullPage: true });
  });

  it('scopes a secret key to namespaces, and widens it again', async () => {
    await page.getByRole('button', { name: '← All keys' }).click();
    const form = createForm();
    await form.getByLabel('Label', { exact: true }).fill('release bot');
    await form.getByRole('group', { name: 'Namespaces' }).getByRole('checkbox', { name: 'tech_docs' }).check();
    await form.getByRole('button', { name: 'Create key' }).click();
    const secretBox = page.getByRole('region', { name: 'New key secret' });
    scopedSecret = await secretBox.getByLabel('Secret').inputValue();
    expect(scopedSecret).toMatch(/^kb_[A-Za-z0-9]{40}$/);
    const row = page.locator('tr', { hasText: 'release bot' });
    expect(await row.locator('td[data-label="Kind"]').textContent()).toBe('secret');
    expect(await row.locator('td[data-label="Scope"]').textContent()).toBe('tech_docs');
    expect(await row.locator('td[data-label="Key"]').textContent()).toBe(`${scopedSecret.slice(0, 9)}…`);
    await expectAccessible();
    await snap('24-keys-list');

    const bot = createKbClient({ baseUrl: server.url, apiKey: scopedSecret });
    await expect(bot.search({ query: 'deploy', source: 'tech_docs' })).resolves.toBeDefined();
    await expect(bot.search({ query: 'rotate', source: 'user_docs' })).rejects.toMatchObject({ status: 403, message: expect.stringContaining('user_docs') });

    // An admin key takes no scope: the namespaces are off while "Admin" is checked.
    await form.getByRole('checkbox', { name: /^Admin/ }).check();
    expect(await form.getByRole('group', { name: 'Namespaces' }).getByRole('checkbox', { name: 'user_docs' }).isDisabled()).toBe(true);
    await form.getByRole('checkbox', { name: /^Admin/ }).uncheck();

    await row.getByRole('link', { name: 'Edit release bot' }).click();
    const edit = page.locator('section', { has: page.getByRole('heading', { name: 'Change the key' }) });
    // A secret key has no origins or visitor budgets to set.
    expect(await edit.getByLabel('Allowed origins').count()).toBe(0);
    expect(await edit.getByLabel('Questions a visitor / minute').count()).toBe(0);
    await edit.getByRole('checkbox', { name: 'tech_docs' }).uncheck();
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.getByText('Saved.').waitFor();
    await expect.poll(() => page.locator('dl.facts').textContent()).toContain('all namespaces');
    await expect(bot.search({ query: 'rotate', source: 'user_docs' })).resolves.toBeDefined();
  });

  it('lists a thumbs-down with its reasons, note, question, answer and sources, filtered and paged', async () => {
    // A reader's votes, as an app holding the key sends them.
    const bot = createKbClient({ baseUrl: server.url, apiKey: scopedSecret });
    const down = await bot.chat.send({ message: 'How do I rotate an API key?', source: 'user_docs' });
    const up = await bot.chat.send({ message: 'How do I deploy the service?', source: 'tech_docs' });
    await bot.chat.feedback({ messageId: down.messageId, rating: 'down', reasons: ['outdated', 'not_what_i_asked'], note: 'The command was renamed in 2.0' });
    await bot.chat.feedback({ messageId: up.messageId, rating: 'up' });

    await open('Feedback');
    const votes = page.locator('ol.feedback > li');
    await expect.poll(() => votes.count()).toBe(2);
    const vote = page.locator(`li[data-message-id="${down.messageId}"]`);
    const text = (await vote.textContent()) ?? '';
    expect(text).toContain('Thumbs down');
    expect(text).toContain('outdated');
    expect(text).toContain('not what I asked');
    expect(text).toContain('The command was renamed in 2.0');
    expect(text).toContain('How do I rotate an API key?');
    expect(text).toContain('release bot');
    expect(await vote.locator('.answer .markdown').textContent()).toContain('create the new key, deploy it');
    expect(await vote.locator('ol.sources').getByRole('link', { name: 'Rotating API keys' }).getAttribute('href')).toMatch(/^https:\/\/docs\.example\.com\/guides\/rotating-keys/);
    await expectAccessible();
    await snap('25-feedback');

    const filters = page.locator('form', { has: page.getByRole('button', { name: 'Filter' }) });
    await filters.getByLabel('Rating').selectOption('down');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => votes.count()).toBe(1);
    await filters.getByLabel('Reason').selectOption('incorrect');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No votes match.').waitFor();
    await filters.getByLabel('Reason').selectOption('');
    await filters.getByLabel('Rating').selectOption('');
    await filters.getByLabel('Namespace').selectOption('tech_docs');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => votes.count()).toBe(1);
    expect(await votes.first().getAttribute('data-message-id')).toBe(up.messageId);
    await filters.getByLabel('Namespace').selectOption('');
    await filters.getByLabel('Key').selectOption({ label: 'docs assistant (publishable)' });
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No votes match.').waitFor();
    await filters.getByLabel('Key').selectOption({ label: 'release bot (secret)' });
    await filters.getByLabel('Since').fill(new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10));
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No votes match.').waitFor();
    await filters.getByLabel('Since').fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
    await filters.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => votes.count()).toBe(2);

    // Paging: more votes than a page holds.
    await Promise.all(
      Array.from({ length: 20 }, async (_, n) => {
        const answer = await bot.chat.send({ message: `Question number ${n} about deploying`, source: 'tech_docs' });
        await bot.chat.feedback({ messageId: answer.messageId, rating: 'up' });
      }),
    );
    await filters.getByRole('button', { name: 'Filter' }).click();
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect.poll(() => pager.textContent()).toContain('1–20 of 22');
    await pager.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => pager.textContent()).toContain('21–22 of 22');
    expect(await votes.count()).toBe(2);
  });

  it('shows the thumbs-down question first among the knowledge gaps', async () => {
    await open('Knowledge gaps');
    const first = page.locator('table.gaps tbody tr').first();
    // The query log is written every 2 seconds.
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Filter' }).click();
          return first.textContent();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toContain('How do I rotate an API key?');
    expect(await first.locator('td[data-label="Voted down"]').textContent()).toBe('1 thumbs down');
    expect(await page.locator('table.gaps tbody tr').nth(1).locator('td[data-label="Voted down"]').textContent()).toBe('—');
    await expectAccessible();
    await snap('26-knowledge-gaps-voted-down');
    expect(problems).toEqual([]);
  });
});
