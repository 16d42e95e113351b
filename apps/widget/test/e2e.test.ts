import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, chromiumAvailable, launchBrowser, SCREENSHOTS, startHostPage, startServer } from './harness.ts';

/**
 * The assistant against the real server (the compiled-from-sources `pnpm dev` process, embedded
 * store), as a documentation team would set it up: the first admin key the new store shows once,
 * two pages ingested, a publishable key for the docs site's origin, and the one script tag on a
 * page of that origin under a strict policy and hostile CSS. Answers are written by Claude through
 * a local stand-in of its API, so that an answer can be slow enough to stop.
 */

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Claude's Messages API, streaming: a short cited answer, or a long slow one for a question asking for it. */
async function startFakeClaude(): Promise<{ url: string; requests: number; aborted: number; close(): Promise<void> }> {
  const state = { requests: 0, aborted: 0 };
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      state.requests++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }));
      res.write(event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
      const finish = () => {
        res.write(event('content_block_stop', { index: 0 }));
        res.write(event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }));
        res.end(event('message_stop', {}));
      };
      const delta = (text: string) => res.write(event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }));
      if (!body.includes('slowly')) {
        delta('Install it with `brew install tool` on macOS [1]. ');
        delta('The cache keeps a page for 300 seconds [2].');
        finish();
        return;
      }
      let part = 0;
      const timer = setInterval(() => {
        part++;
        delta(`Part ${part} of a long answer. `);
        if (part === 400) {
          clearInterval(timer);
          finish();
        }
      }, 25);
      res.on('close', () => {
        if (part < 400) state.aborted++;
        clearInterval(timer);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    get aborted() {
      return state.aborted;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.runIf(chromiumAvailable())('the assistant against the real server', () => {
  let claude: Awaited<ReturnType<typeof startFakeClaude>>;
  let server: Awaited<ReturnType<typeof startServer>>;
  let host: Awaited<ReturnType<typeof startHostPage>>;
  let foreign: Awaited<ReturnType<typeof startHostPage>>;
  let browser: Browser;
  let page: Page;
  let admin: string;
  const problems: string[] = [];

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & { [key: string]: any } }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const dialog = () => page.getByRole('dialog', { name: 'Ask the docs' });
  const answers = () => dialog().getByRole('article', { name: 'Answer' });

  beforeAll(async () => {
    claude = await startFakeClaude();
    server = await startServer({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: claude.url, ANTHROPIC_MODEL: 'claude-test' });
    // A new store shows its first admin key once, on the terminal.
    admin = /\b(kb_[0-9A-Za-z]{40})\b/.exec(server.stderr())?.[1] ?? '';
    expect(admin).not.toBe('');
    const ingest = (title: string, content: string, url: string) =>
      api('/ingest/md', { method: 'POST', body: JSON.stringify({ title, namespace: 'user_docs', content, metadata: { url } }) });
    expect((await ingest('Install', '# Install\n\nInstall the tool with `brew install tool` on macOS.\n', 'https://docs.example.com/install')).status).toBe(200);
    expect((await ingest('Caching', '# Caching\n\nThe cache keeps a page for 300 seconds by default.\n', 'https://docs.example.com/caching')).status).toBe(200);
    // The page's origin is known once it listens: the key is made for it.
    let key = '';
    host = await startHostPage({ server: server.url, key: () => key, host: 'localhost', attributes: { examples: 'How do I install it?' } });
    const created = await api('/keys', { method: 'POST', body: JSON.stringify({ label: 'docs site', kind: 'publishable', namespaces: ['user_docs'], allowedOrigins: [host.origin] }) });
    expect(created.status).toBe(201);
    key = created.body.key as string;
    foreign = await startHostPage({ server: server.url, key, host: '127.0.0.2' });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([host?.close(), foreign?.close(), server?.stop(), claude?.close()]);
  });

  it('opens on Ctrl+I and streams a cited answer whose sources link to the pages', async () => {
    await page.goto(host.url);
    await page.getByRole('button', { name: 'Ask AI' }).waitFor();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+KeyI');
    await dialog().waitFor();
    await dialog().getByRole('button', { name: 'How do I install it?' }).click();
    const answer = answers().first();
    await expect.poll(() => answer.getAttribute('aria-busy'), { timeout: 30_000 }).toBeNull();
    expect(await answer.textContent()).toContain('brew install tool');
    const sources = answer.getByRole('region', { name: 'Sources' });
    expect(await sources.getByRole('link', { name: 'Install' }).getAttribute('href')).toBe('https://docs.example.com/install');
    // The server answers with a model here, and its config says so: the disclaimer is that one.
    expect(await dialog().getByText(/^Answers are written by AI from the documentation/).isVisible()).toBe(true);
    await page.screenshot({ path: join(SCREENSHOTS, 'e2e-01-answer-desktop.png') });
  });

  it('keeps the conversation for a follow-up', async () => {
    const input = dialog().getByRole('textbox', { name: 'Your question' });
    await input.fill('And how long does the cache keep a page?');
    await input.press('Enter');
    await expect.poll(() => answers().count()).toBe(2);
    await expect.poll(() => answers().nth(1).getAttribute('aria-busy'), { timeout: 30_000 }).toBeNull();
    const { body } = await api('/conversations');
    expect(body.conversations).toHaveLength(1);
    expect(body.conversations[0].messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('stops an answer being written, and the model with it', async () => {
    const input = dialog().getByRole('textbox', { name: 'Your question' });
    await input.fill('Please answer slowly and at length');
    await input.press('Enter');
    const third = answers().nth(2);
    await expect.poll(() => third.textContent(), { timeout: 30_000 }).toContain('Part 3');
    await dialog().getByRole('button', { name: 'Stop answering' }).click();
    await expect.poll(() => third.textContent()).toContain('Stopped.');
    // The server let go of the model's stream, and kept what was written, marked interrupted.
    await expect.poll(() => claude.aborted, { timeout: 10_000 }).toBe(1);
    await expect.poll(async () => (await api('/conversations')).body.conversations[0].messages.at(-1).interrupted, { timeout: 10_000 }).toBe(true);
  });

  it('sends a thumbs-down with a reason that the administrators see', async () => {
    const first = answers().first();
    await first.getByRole('button', { name: 'Not helpful' }).click();
    await first.getByRole('group', { name: 'What was wrong with this answer?' }).getByRole('checkbox', { name: 'Outdated' }).check();
    await first.getByRole('textbox', { name: 'Anything to add? (optional)' }).fill('brew is not how we install it any more');
    await first.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => first.textContent()).toContain('Thanks for your feedback.');
    const { body } = await api('/feedback?rating=down');
    expect(body.feedback).toEqual([
      expect.objectContaining({ rating: 'down', reasons: ['outdated'], note: 'brew is not how we install it any more', question: 'How do I install it?', keyLabel: 'docs site' }),
    ]);
  });

  it('passes an axe-core scan, and breaks no rule of the page', async () => {
    const violations = await axeViolations(page);
    expect(violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
    expect(problems).toEqual([]);
    const phone = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    try {
      const small = await phone.newPage();
      await small.goto(host.url);
      await small.getByRole('button', { name: 'Ask AI' }).click();
      await small.getByRole('dialog').waitFor();
      await small.screenshot({ path: join(SCREENSHOTS, 'e2e-02-open-phone.png') });
    } finally {
      await phone.close();
    }
  });

  it('tells a page of another origin that it may not use the assistant, as the server refused it', async () => {
    const other = await browser.newContext({ viewport: DESKTOP });
    try {
      const tab = await other.newPage();
      const seen: number[] = [];
      tab.on('response', (response) => {
        if (response.url().includes('/assistant/config')) seen.push(response.status());
      });
      await tab.goto(foreign.url);
      await tab.getByRole('button', { name: 'Ask AI' }).click();
      await expect.poll(() => tab.getByRole('dialog').getByRole('alert').textContent()).toBe('This site is not allowed to use this assistant.');
      expect(seen).toEqual([403]);
      await tab.screenshot({ path: join(SCREENSHOTS, 'e2e-03-not-allowed-desktop.png') });
    } finally {
      await other.close();
    }
  });
});
