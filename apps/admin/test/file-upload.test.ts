import { join } from 'node:path';
import { pdfLibPdf, scannedPdf } from '@kb/content/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, axeViolations, chromiumAvailable, launchBrowser, SCREENSHOTS, startServer, type RunningServer } from './harness.ts';

/** The server's file limit here: a little text file goes over it. */
const MAX_FILE_BYTES = 200_000;
/** Upload speed while a file is seen going up (bytes a second): the loopback is otherwise done at once. */
const SLOW_UPLOAD = 100_000;

/** Files dropped on the Knowledge page (and one chosen with the picker), sent to the real server. */
describe.runIf(chromiumAvailable())('file upload on the Knowledge page in Chromium', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer({ KB_ADMIN_PASSWORD: ADMIN_PASSWORD, KB_MAX_FILE_BYTES: String(MAX_FILE_BYTES) }), launchBrowser()]);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.url });
    page = await context.newPage();
    page.on('console', (message) => {
      // The refusals the test provokes are logged by Chromium as failed loads.
      if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto('/admin/knowledge');
    await page.getByLabel('Admin password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Upload files' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  const upload = () => page.locator('section', { has: page.getByRole('heading', { name: 'Upload files' }) });
  const row = (name: string) => upload().locator(`li[data-upload="${name}"]`);

  /** Each upload row's phase, every time one changes, from the page itself. */
  async function recordPhases(): Promise<void> {
    await page.evaluate(() => {
      const seen: Array<Record<string, string>> = [];
      (window as unknown as { phases: typeof seen }).phases = seen;
      const snapshot = () => seen.push(Object.fromEntries([...document.querySelectorAll('li[data-upload]')].map((li) => [li.getAttribute('data-upload'), li.getAttribute('data-phase')])));
      new MutationObserver(snapshot).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-phase'] });
    });
  }
  const phases = () => page.evaluate(() => (window as unknown as { phases: Array<Record<string, string>> }).phases);

  it('uploads dropped files two at a time into the chosen namespace and folder, each with its outcome', async () => {
    await upload().getByLabel('Namespace').selectOption('tech_docs');
    await upload().getByLabel('Folder (optional)').fill('guides');
    await recordPhases();
    const files = [
      { name: 'key-guide.pdf', type: 'application/pdf', bytes: [...(await pdfLibPdf(2, { title: 'Key guide' }))] },
      { name: 'diagram.png', type: 'image/png', bytes: [...Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64')] },
      { name: 'scan.pdf', type: 'application/pdf', bytes: [...(await scannedPdf())] },
      { name: 'huge.txt', type: 'text/plain', bytes: [...Buffer.from('Rotate the key. '.repeat(MAX_FILE_BYTES / 10))] },
    ];
    const transfer = await page.evaluateHandle((list) => {
      const data = new DataTransfer();
      for (const file of list) data.items.add(new File([new Uint8Array(file.bytes)], file.name, { type: file.type }));
      return data;
    }, files);
    const zone = upload().locator('label.dropzone');
    expect(await zone.textContent()).toContain('Drop files here, or choose files to upload');
    await zone.dispatchEvent('dragenter', { dataTransfer: transfer });
    await zone.dispatchEvent('drop', { dataTransfer: transfer });

    // The PDF is stored, with its pages and a link to its document.
    await expect.poll(() => row('key-guide.pdf').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done');
    expect(await row('key-guide.pdf').getByRole('status').textContent()).toBe('Stored in tech_docs (2 pages): open the document');
    // Each refusal in the service's words; none stopped the others.
    await expect.poll(() => upload().locator('li[data-phase="failed"]').count(), { timeout: 30_000 }).toBe(3);
    expect(await row('diagram.png').getByRole('alert').textContent()).toMatch(/Unsupported content type "image\/png".*PDF \(application\/pdf\), Word \(\.docx\).*\[415 UNSUPPORTED_MEDIA_TYPE\]/);
    expect(await row('scan.pdf').getByRole('alert').textContent()).toMatch(/no text layer.*OCR is not supported.*\[422 /);
    expect(await row('huge.txt').getByRole('alert').textContent()).toMatch(new RegExp(`larger than the limit of ${MAX_FILE_BYTES} bytes.*\\[413 PAYLOAD_TOO_LARGE\\] The limit is the service's KB_MAX_FILE_BYTES setting\\.$`));

    // Never more than two files on their way at once: the others waited their turn.
    const history = await phases();
    expect(history.length).toBeGreaterThan(0);
    for (const snapshot of history) expect(Object.values(snapshot).filter((phase) => phase === 'uploading' || phase === 'processing').length).toBeLessThanOrEqual(2);
    expect(history.some((snapshot) => Object.values(snapshot).includes('queued'))).toBe(true);
    const pdfPhases = history.map((snapshot) => snapshot['key-guide.pdf']).filter((phase, at, all) => phase !== undefined && phase !== all[at - 1]);
    const order = ['queued', 'uploading', 'processing', 'done'];
    expect(pdfPhases.map((phase) => order.indexOf(phase!))).toEqual([...pdfPhases.map((phase) => order.indexOf(phase!))].sort((a, b) => a - b));
    expect(pdfPhases).toContain('uploading');
    expect(pdfPhases.at(-1)).toBe('done');

    // The counts and the list show the new document.
    await expect.poll(() => page.locator('[data-namespace="tech_docs"]').textContent()).toMatch(/1 document(?!s)/);
    await page.getByRole('button', { name: 'Key guide' }).waitFor();
    expect(await axeViolations(page, 'main').then((found) => found.map((violation) => `${violation.id}: ${violation.help}`))).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, 'upload-1-outcomes-desktop.png'), fullPage: true });
    // On a phone the rows and their messages wrap: nothing is wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(1);
    await page.screenshot({ path: join(SCREENSHOTS, 'upload-1-outcomes-phone.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Its link opens the document, cited by page, in its folder.
    await row('key-guide.pdf').getByRole('link', { name: 'open the document' }).click();
    await page.locator('ol.chunks > li').first().waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/knowledge\/[0-9a-f-]{36}$/);
    expect(await page.locator('dl.facts').textContent()).toContain('guides');
    expect(await page.locator('ol.chunks .heading-path').allTextContents()).toEqual(['Key guide > Chapter 1', 'Key guide > Chapter 2']);
    expect(problems).toEqual([]);
  });

  it('takes files from the picker too, from the keyboard, showing the bytes going up', async () => {
    await page.goto('/admin/knowledge');
    await page.getByRole('heading', { name: 'Upload files' }).waitFor();
    // A slow line, so that the upload is seen on its way.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: SLOW_UPLOAD });
    const notes = `# Release notes\n\n${'The rotation of keys is documented in the guide. '.repeat(3_000)}\n`;
    // From the keyboard: Tab from the folder field reaches the picker, Space opens it.
    await upload().getByLabel('Folder (optional)').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('file');
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Space')]);
    expect(chooser.isMultiple()).toBe(true);
    await chooser.setFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from(notes) });
    const bar = row('notes.md').getByRole('progressbar', { name: 'Uploading notes.md' });
    await bar.waitFor();
    const sent = await bar.evaluate((element: HTMLProgressElement) => [element.value, element.max]);
    expect(sent[1]).toBe(Buffer.byteLength(notes));
    expect(sent[0]).toBeLessThan(sent[1]!);
    expect(await row('notes.md').textContent()).toMatch(/ of 143\.6 kB sent/);
    await page.screenshot({ path: join(SCREENSHOTS, 'upload-2-progress-desktop.png'), fullPage: true });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await expect.poll(() => row('notes.md').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done');
    expect(await row('notes.md').getByRole('status').textContent()).toBe('Stored in user_docs: open the document');
    await page.getByRole('button', { name: 'Release notes' }).waitFor();

    // A file dropped beside the drop zone is uploaded as well, the console staying where it is.
    const faq = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['Keys are rotated every 90 days.\n'], 'faq.txt', { type: 'text/plain' }));
      return data;
    });
    await page.locator('main h1').dispatchEvent('drop', { dataTransfer: faq });
    await expect.poll(() => row('faq.txt').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done');
    expect(new URL(page.url()).pathname).toBe('/admin/knowledge');
    expect(problems).toEqual([]);
  });
});
