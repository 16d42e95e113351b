import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAQ_QUESTIONS, startFakeServer, type FakeKey, type FakeServer } from './fake-server.ts';
import { axeViolations, chromiumAvailable, launchBrowser, SCREENSHOTS, startHostPage } from './harness.ts';

/**
 * The assistant in Chromium, embedded with its one script tag in a documentation page served from
 * a second origin, under a strict Content-Security-Policy (the server in script-src and
 * connect-src, nothing inline) and CSS that unsets everything and hides every button. The server
 * side is the contract's stand-in (fake-server.ts).
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const KEY = `kb_pub_${'Abc123XyZ9'.repeat(4)}`;
const BOT_KEY = `kb_pub_${'Bot456QwE0'.repeat(4)}`;

describe.runIf(chromiumAvailable())('the assistant on a strict, hostile page', () => {
  let server: FakeServer;
  let host: Awaited<ReturnType<typeof startHostPage>>;
  let foreign: Awaited<ReturnType<typeof startHostPage>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const problems: string[] = [];
  let keys: FakeKey[];

  /** The dialog, found through the open shadow root. */
  const dialog = () => page.getByRole('dialog', { name: 'Ask the docs' });
  const answers = () => dialog().getByRole('article', { name: 'Answer' });

  function watch(target: Page, into: string[]): void {
    target.on('console', (message) => {
      // A refusal the assistant asked for and shows (403, 429) is logged by Chromium as a failed load: not a problem.
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) into.push(message.text());
    });
    target.on('pageerror', (error) => into.push(error.message));
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    // The key's allowed origins are filled in once the pages listen (their ports are known then).
    keys = [];
    server = await startFakeServer(keys);
    host = await startHostPage({ server: server.url, key: KEY, host: 'localhost', attributes: { examples: 'How do I install it?|Which settings are there?', namespaces: 'user_docs' } });
    foreign = await startHostPage({ server: server.url, key: KEY, host: '127.0.0.2' });
    keys.push(
      { key: KEY, origins: [host.origin], namespaces: ['user_docs', 'tech_docs'] },
      { key: BOT_KEY, origins: [host.origin], namespaces: ['user_docs'], botCheck: { provider: 'turnstile', siteKey: '1x00000000000000000000AA' } },
    );
    context = await browser.newContext({ viewport: DESKTOP });
    await context.addInitScript(() => {
      // Every refusal of the page's policy, for the test to see.
      (window as unknown as { violations: string[] }).violations = [];
      document.addEventListener('securitypolicyviolation', (event) => (window as unknown as { violations: string[] }).violations.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    page = await context.newPage();
    watch(page, problems);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), host?.close(), foreign?.close()]);
  });

  it('adds a working floating button that the hostile CSS cannot hide, and opens on Ctrl+I', async () => {
    await page.goto(host.url);
    const launcher = page.getByRole('button', { name: 'Ask AI' });
    await launcher.waitFor();
    // The page's own button is hidden by its CSS; the assistant's is not.
    expect(await page.locator('#host-button').isVisible()).toBe(false);
    expect(await launcher.isVisible()).toBe(true);
    const box = (await launcher.boundingBox())!;
    expect(box.x + box.width).toBeGreaterThan(DESKTOP.width - 60);
    expect(box.y + box.height).toBeGreaterThan(DESKTOP.height - 60);
    await page.screenshot({ path: join(SCREENSHOTS, '01-page-with-button-desktop.png') });

    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+KeyI');
    await dialog().waitFor();
    // The question box has the focus, inside the shadow root.
    expect(await page.evaluate(() => document.querySelector('kb-assistant')!.shadowRoot!.activeElement?.id)).toBe('kb-question');
    await expect.poll(() => server.configs.length).toBeGreaterThan(0);
    expect(server.configs.at(-1)).toEqual({ origin: host.origin, status: 200 });
  });

  it('streams an answer with linked sources, rendering hostile Markdown as text', async () => {
    await dialog().getByRole('button', { name: 'How do I install it?' }).click();
    const answer = answers().first();
    await expect.poll(() => answer.getAttribute('aria-busy'), { timeout: 15_000 }).toBeNull();
    await expect.poll(() => answer.textContent()).toContain('the install guide');
    expect(server.chats[0]).toMatchObject({ message: 'How do I install it?', source: ['user_docs'], origin: host.origin });
    expect(server.chats[0]!.conversationId).toBeUndefined();

    // The link in the answer, and the sources with their anchors; titles are text, not markup.
    expect(await answer.getByRole('link', { name: 'the install guide' }).getAttribute('href')).toBe('https://docs.example.com/install#requirements');
    const sources = answer.getByRole('region', { name: 'Sources' });
    expect(await sources.getByRole('link', { name: 'Install <b>guide</b>' }).getAttribute('href')).toBe('https://docs.example.com/install#requirements');
    expect(await sources.getByRole('link', { name: 'Configuration' }).getAttribute('href')).toBe('https://docs.example.com/configuration');
    for (const link of await answer.getByRole('link').all()) {
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    }
    // The javascript: link is text, the <img> and <script> are text, and nothing ran.
    expect(await answer.getByRole('link', { name: 'Do not click' }).count()).toBe(0);
    expect(await answer.textContent()).toContain('<img src=x onerror="window.pwned=1">');
    expect(await answer.locator('img, script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    // A source shows its page and the section the answer drew on.
    expect(await sources.getByRole('listitem').first().innerText()).toBe('Install <b>guide</b>\nRequirements');
    // The code block has a copy button, above the code and not over it.
    expect(await answer.locator('pre').textContent()).toBe('pnpm start <script>alert(1)</script>');
    const copy = answer.getByRole('button', { name: 'Copy code' });
    expect(await copy.isVisible()).toBe(true);
    const [copyBox, codeBox] = [(await copy.boundingBox())!, (await answer.locator('pre').boundingBox())!];
    expect(copyBox.y + copyBox.height).toBeLessThanOrEqual(codeBox.y);
    // The votes say what they mean in words, not only with a thumb.
    expect(await answer.getByRole('button', { name: 'Helpful', exact: true }).innerText()).toBe('Helpful');
    expect(await answer.getByRole('button', { name: 'Not helpful' }).innerText()).toBe('Not helpful');
    // The disclaimer is true of the answerer the server says it has (extractive here).
    expect(await dialog().getByText(/^Answers are passages quoted from the documentation/).isVisible()).toBe(true);
    expect(await dialog().textContent()).not.toContain('written by AI');
    // The finished answer is announced once, whole.
    await expect.poll(() => page.locator('#kb-live').textContent()).toContain('Answer: To install, run pnpm install');
    await page.screenshot({ path: join(SCREENSHOTS, '02-answer-desktop.png') });
  });

  it('keeps the conversation for a follow-up', async () => {
    const input = dialog().getByRole('textbox', { name: 'Your question' });
    await input.fill('And a follow-up question?');
    await input.press('Enter');
    await expect.poll(() => answers().count()).toBe(2);
    await expect.poll(() => answers().nth(1).textContent()).toContain('the same settings apply to the follow-up');
    const second = server.chats[1]!;
    expect(second.message).toBe('And a follow-up question?');
    expect(second.conversationId).toMatch(/^[\w-]{36}$/);
  });

  it('stops an answer being written', async () => {
    const input = dialog().getByRole('textbox', { name: 'Your question' });
    await input.fill('Give me a slow, long answer');
    await input.press('Enter');
    const third = answers().nth(2);
    await expect.poll(() => third.textContent()).toContain('Part 3');
    await dialog().getByRole('button', { name: 'Stop answering' }).click();
    await expect.poll(() => third.textContent()).toContain('Stopped.');
    const stoppedAt = (await third.textContent())!.length;
    await page.waitForTimeout(400);
    expect((await third.textContent())!.length).toBe(stoppedAt);
    expect(await third.textContent()).not.toContain('Part 199');
    expect(await dialog().getByRole('button', { name: 'Send' }).isVisible()).toBe(true);
  });

  it('takes a thumbs-down with reasons and a note, and a changed vote', async () => {
    const first = answers().first();
    await first.getByRole('button', { name: 'Not helpful' }).click();
    const form = first.getByRole('group', { name: 'What was wrong with this answer?' });
    await form.getByRole('checkbox', { name: 'Outdated' }).check();
    await form.getByRole('checkbox', { name: 'Incomplete' }).check();
    await first.getByRole('textbox', { name: 'Anything to add? (optional)' }).fill('The install page lists an old version.');
    await page.screenshot({ path: join(SCREENSHOTS, '03-feedback-desktop.png') });
    await first.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => first.textContent()).toContain('Thanks for your feedback.');
    const last = server.feedback.at(-1)!;
    expect(last).toMatchObject({ rating: 'down', reasons: ['incomplete', 'outdated'], note: 'The install page lists an old version.' });
    expect(await first.getByRole('button', { name: 'Not helpful' }).getAttribute('aria-pressed')).toBe('true');

    await answers().nth(1).getByRole('button', { name: 'Helpful', exact: true }).click();
    await expect.poll(() => server.feedback.at(-1)?.rating).toBe('up');
    // The server records the vote before it answers; the button shows it once the answer is read.
    await expect.poll(() => answers().nth(1).getByRole('button', { name: 'Helpful', exact: true }).getAttribute('aria-pressed')).toBe('true');
  });

  it('says in words when the limit is reached, with the wait from Retry-After', async () => {
    const input = dialog().getByRole('textbox', { name: 'Your question' });
    await input.fill('Over the limit?');
    await input.press('Enter');
    const refused = answers().nth(3);
    await expect.poll(() => refused.textContent()).toContain('You have asked 10 questions in the last minute');
    expect(await refused.textContent()).toMatch(/Try again in (20|19) s/);
    expect(await refused.getByRole('button', { name: 'Retry' }).isDisabled()).toBe(true);
  });

  it('shows a long answer from its beginning, with its question at the top, not its end', async () => {
    const input = dialog().getByRole('textbox', { name: 'Your question' });
    await input.fill('Could I have a long answer?');
    await input.press('Enter');
    const long = answers().nth(4);
    await expect.poll(() => long.getAttribute('aria-busy'), { timeout: 15_000 }).toBeNull();
    await expect.poll(() => long.textContent()).toContain('The last line of the long answer.');
    await page.waitForTimeout(100);
    const seen = await page.evaluate(() => {
      const root = document.querySelector('kb-assistant')!.shadowRoot!;
      const view = root.querySelector('.scroll')!.getBoundingClientRect();
      const question = [...root.querySelectorAll('.msg.user')].at(-1)!.getBoundingClientRect();
      const answer = [...root.querySelectorAll('.answer')].at(-1)!;
      const first = answer.firstElementChild!.getBoundingClientRect();
      const last = answer.lastElementChild!.getBoundingClientRect();
      return { question: question.top - view.top, first: first.bottom <= view.bottom, last: last.top < view.bottom };
    });
    expect(seen.question).toBeGreaterThanOrEqual(0);
    expect(seen.question).toBeLessThan(40);
    expect(seen.first).toBe(true);
    expect(seen.last).toBe(false);
    await page.screenshot({ path: join(SCREENSHOTS, '07-long-answer-desktop.png') });
  });

  it('passes an axe-core scan with no serious or critical violation, and broke no rule of the page', async () => {
    const violations = await axeViolations(page);
    expect(violations.map((violation) => `${violation.id}: ${violation.help} ${JSON.stringify(violation.nodes.map((node) => node.target))}`)).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('keeps the focus in the dialog, closes on Escape and gives the focus back', async () => {
    const input = dialog().getByRole('textbox', { name: 'Your question' });
    await input.focus();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      const inside = await page.evaluate(() => {
        const root = document.querySelector('kb-assistant')!.shadowRoot!;
        return document.activeElement?.tagName === 'KB-ASSISTANT' && root.querySelector('[role=dialog]')!.contains(root.activeElement);
      });
      expect(inside).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog().isVisible()).toBe(false);
    // It was opened with the shortcut from the page's body: the focus goes to the assistant's button.
    expect(await page.evaluate(() => document.querySelector('kb-assistant')!.shadowRoot!.activeElement?.className)).toBe('launcher');
  });

  it('lists the conversation in the history, reopens it from the server, and clears the history', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Ask AI' }).click();
    await dialog().getByRole('button', { name: 'Earlier conversations' }).click();
    const entry = dialog().getByRole('button', { name: /How do I install it\?/ });
    await entry.click();
    await expect.poll(() => answers().count()).toBeGreaterThanOrEqual(3);
    await expect.poll(() => answers().first().getByRole('button', { name: 'Not helpful' }).getAttribute('aria-pressed')).toBe('true');
    const stored = await page.evaluate(() => Object.keys(localStorage));
    expect(stored).toEqual([`kb-assistant:${'kb_pub_' + 'Abc123XyZ9'.repeat(4)}`]);
    await dialog().getByRole('button', { name: 'Earlier conversations' }).click();
    await dialog().getByRole('button', { name: 'Clear history' }).click();
    await expect.poll(() => dialog().textContent()).toContain('No earlier conversations on this device.');
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
  });

  it('is a full-screen sheet on a phone', async () => {
    const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const small = await phone.newPage();
      await small.goto(host.url);
      await small.getByRole('button', { name: 'Ask AI' }).click();
      await small.getByRole('dialog').waitFor();
      await small.screenshot({ path: join(SCREENSHOTS, '04-open-phone.png') });
      const box = (await small.getByRole('dialog').boundingBox())!;
      expect(box).toMatchObject({ x: 0, y: 0, width: PHONE.width, height: PHONE.height });
      await small.getByRole('dialog').getByRole('button', { name: 'Which settings are there?' }).click();
      await expect.poll(() => small.getByRole('dialog').getByRole('article').first().getAttribute('aria-busy'), { timeout: 15_000 }).toBeNull();
      await small.screenshot({ path: join(SCREENSHOTS, '05-answer-phone.png') });
      const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(1);
    } finally {
      await phone.close();
    }
  });

  it('shows a new reader example questions from the FAQ of the page\'s topic when the page gives none', async () => {
    const plain = await startHostPage({ server: server.url, key: KEY, host: 'localhost' });
    keys.find((key) => key.key === KEY)!.origins.push(plain.origin);
    const asked = server.faqs.length;
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const other = await browser.newContext({ viewport, ...(name === 'phone' ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}) });
      try {
        const tab = await other.newPage();
        await tab.goto(plain.url);
        await tab.getByRole('button', { name: 'Ask AI' }).click();
        const examples = tab.getByRole('dialog').getByRole('list', { name: 'Example questions' });
        await expect.poll(() => examples.getByRole('button').allInnerTexts()).toEqual(FAQ_QUESTIONS.slice(0, 4));
        await tab.screenshot({ path: join(SCREENSHOTS, `08-faq-examples-${name}.png`) });
        await examples.getByRole('button', { name: FAQ_QUESTIONS[0] }).click();
        await expect.poll(() => tab.getByRole('dialog').getByRole('article').first().getAttribute('aria-busy'), { timeout: 15_000 }).toBeNull();
        await tab.screenshot({ path: join(SCREENSHOTS, `09-faq-example-answered-${name}.png`) });
      } finally {
        await other.close();
      }
    }
    // Asked once a page, for the page's main heading, in the namespace the key reads.
    expect(server.faqs.slice(asked)).toEqual([
      { q: 'Example documentation', source: 'user_docs' },
      { q: 'Example documentation', source: 'user_docs' },
    ]);
    expect(server.chats.at(-1)!.message).toBe(FAQ_QUESTIONS[0]);
    await plain.close();
  });

  it('tells a page whose origin the key does not allow that it may not use the assistant', async () => {
    const other = await browser.newContext({ viewport: DESKTOP });
    try {
      const tab = await other.newPage();
      const seen: number[] = [];
      tab.on('response', (response) => {
        if (response.url().includes('/assistant/config')) seen.push(response.status());
      });
      await tab.goto(foreign.url);
      await tab.getByRole('button', { name: 'Ask AI' }).click();
      const alert = tab.getByRole('dialog').getByRole('alert');
      await expect.poll(() => alert.textContent()).toBe('This site is not allowed to use this assistant.');
      expect(seen).toEqual([403]);
      expect(server.configs.at(-1)).toEqual({ origin: foreign.origin, status: 403 });
      await tab.screenshot({ path: join(SCREENSHOTS, '06-not-allowed-desktop.png') });
      // No question can be asked.
      expect(await tab.getByRole('dialog').getByRole('textbox', { name: 'Your question' }).isDisabled()).toBe(true);
      expect(server.chats.every((chat) => chat.origin !== foreign.origin)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('runs the bot check only when the key has one, loading the provider from the address the docs give', async () => {
    const other = await browser.newContext({ viewport: DESKTOP });
    const botPage = await startHostPage({ server: server.url, key: BOT_KEY, host: 'localhost', extraScriptSrc: 'https://challenges.cloudflare.com' });
    keys.find((key) => key.key === BOT_KEY)!.origins.push(botPage.origin);
    try {
      const tab = await other.newPage();
      const loaded: string[] = [];
      // The provider, as a stand-in: renders into the given element and passes at once.
      await tab.route('https://challenges.cloudflare.com/**', (route) => {
        loaded.push(route.request().url());
        return route.fulfill({
          contentType: 'text/javascript',
          body: `window.turnstile = { render(el, options) { el.textContent = 'challenge for ' + options.sitekey; setTimeout(() => options.callback('fake-captcha-token'), 100); return 'w1'; } };`,
        });
      });
      // Before anything is asked, no provider script is loaded.
      await tab.goto(botPage.url);
      await tab.getByRole('button', { name: 'Ask AI' }).click();
      expect(loaded).toEqual([]);
      await tab.getByRole('dialog').getByRole('textbox', { name: 'Your question' }).fill('How do I install it?');
      await tab.keyboard.press('Enter');
      await expect.poll(() => tab.getByRole('dialog').getByRole('article').first().textContent(), { timeout: 15_000 }).toContain('the install guide');
      expect(loaded).toEqual(['https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit']);
      expect(server.visitors).toEqual(['fake-captcha-token']);
      expect(server.chats.at(-1)!.visitor).toBe('visitor-token-1');
    } finally {
      await other.close();
      await botPage.close();
    }
  });
});
