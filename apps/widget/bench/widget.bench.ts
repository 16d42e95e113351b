import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { startFakeServer, type FakeKey } from '../test/fake-server.ts';
import { chromiumAvailable, launchBrowser, startHostPage } from '../test/harness.ts';
import { widgetFile } from '../index.js';

/**
 * The assistant's cost to a page: the script's size gzipped (its budget: 30 KB), and the
 * time from a click on its button to the open dialog in Chromium, against the same page's
 * do-nothing click (a button of the page's own whose handler shows an element) measured in the
 * same run.
 */

const LIMIT_BYTES = 30 * 1024;
const RUNS = 30;

const raw = readFileSync(widgetFile);
const gzipped = gzipSync(raw, { level: 9 }).length;
console.log(`kb-assistant.js: ${(raw.length / 1024).toFixed(1)} KB, ${(gzipped / 1024).toFixed(1)} KB gzipped; limit ${(LIMIT_BYTES / 1024).toFixed(0)} KB (ratio ${(gzipped / LIMIT_BYTES).toFixed(2)})`);

if (chromiumAvailable()) {
  const key = `kb_pub_${'Bench12345'.repeat(4)}`;
  const keys: FakeKey[] = [];
  const server = await startFakeServer(keys);
  const host = await startHostPage({ server: server.url, key, host: 'localhost' });
  keys.push({ key, origins: [host.origin], namespaces: ['user_docs'] });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(host.url);
    await page.getByRole('button', { name: 'Ask AI' }).waitFor();
    // Time inside the page, from the click event to the frame after the dialog is shown.
    const open = async (): Promise<number> =>
      page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const element = document.querySelector('kb-assistant') as HTMLElement & { close(): void };
            const root = element.shadowRoot!;
            const launcher = root.querySelector<HTMLButtonElement>('.launcher')!;
            const panel = root.querySelector<HTMLElement>('[role=dialog]')!;
            const started = performance.now();
            launcher.click();
            requestAnimationFrame(() =>
              setTimeout(() => {
                const ms = panel.hidden ? Number.NaN : performance.now() - started;
                element.close();
                resolve(ms);
              }, 0),
            );
          }),
      );
    const baseline = async (): Promise<number> =>
      page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const button = document.createElement('button');
            const box = document.createElement('div');
            box.hidden = true;
            box.textContent = 'shown';
            button.addEventListener('click', () => (box.hidden = false));
            document.body.append(button, box);
            const started = performance.now();
            button.click();
            requestAnimationFrame(() =>
              setTimeout(() => {
                const ms = performance.now() - started;
                button.remove();
                box.remove();
                resolve(ms);
              }, 0),
            );
          }),
      );
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const opens: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      opens.push(await open());
      floors.push(await baseline());
    }
    const first = opens[0]!;
    console.log(
      `click to open dialog (Chromium, ${RUNS} runs): median ${median(opens).toFixed(1)} ms (first ${first.toFixed(1)} ms); a do-nothing click to a shown element: ${median(floors).toFixed(1)} ms (ratio ${(median(opens) / median(floors)).toFixed(2)})`,
    );
  } finally {
    await browser.close();
    await host.close();
    await server.close();
  }
}
