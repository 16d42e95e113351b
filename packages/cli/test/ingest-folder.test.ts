import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedEmbeddedStore } from '@kb/db/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { documentFor, includedFiles, joinUrl, titleOf } from '../src/commands/ingest-folder.ts';
import { freePort, run, start } from './process.ts';

const work = mkdtempSync(join(tmpdir(), 'kb-folder-'));
const docs = join(work, 'docs');
const dataDir = join(work, 'store');
// Migrated stores to start from: a new store's initdb costs seconds of every process that makes one.
for (const store of ['store', 'sync-store', 'server-store', 'local-store', 'many-store']) await seedEmbeddedStore(join(work, store));
afterAll(() => rmSync(work, { recursive: true, force: true }));

mkdirSync(join(docs, 'guide', 'deep'), { recursive: true });
writeFileSync(join(docs, 'index.md'), '---\ntitle: Welcome\n---\n# Hello\n\nStart here.\n');
writeFileSync(join(docs, 'guide', 'install.md'), '# Installing\n\nRun the installer.\n');
writeFileSync(join(docs, 'guide', 'technical.md'), '# Internals\n\nThe cache is a ring buffer.\n');
writeFileSync(join(docs, 'guide', 'deep', 'notes.markdown'), 'No heading here, just text.\n');
writeFileSync(join(docs, 'guide', 'image.png'), 'not markdown');

const kb = (args: string[]) => run('packages/cli/src/main.ts', args, { KB_DATA_DIR: dataDir });

describe('site-generator directives', () => {
  const site = join(work, 'directives');
  mkdirSync(join(site, 'content', 'en', '_common'), { recursive: true });
  mkdirSync(join(site, 'content', 'en', 'menus'), { recursive: true });
  writeFileSync(join(site, 'content', 'en', '_common', 'props.md'), '---\n_comment: fragment\n---\n\n`name`\n: The text of the entry.\n');
  writeFileSync(join(work, 'outside.md'), 'secret outside the folder');
  const page = [
    '---',
    'title: Menus',
    '---',
    '',
    '## Properties',
    '',
    '{{% include "/_common/props.md" %}}',
    '',
    '{{% include "../../../outside.md" %}}',
    '',
    '{{< code-toggle file=hugo >}}',
    '[menus.main]',
    'weight = 20',
    '{{< /code-toggle >}}',
    '',
  ].join('\n');
  const file = join(site, 'content', 'en', 'menus', 'Front.md');

  it('expands includes found in the folder, makes code-toggle a code block, and never reads outside the folder', () => {
    const doc = documentFor(site, file, page);
    // The included text between markers that name its file (see the content package's chunking/fragments.ts).
    expect(doc.content).toBe(
      [
        ...['---', 'title: Menus', '---', '', '## Properties', '', ''],
        ...['<!-- kb:fragment content/en/_common/props.md -->', '', '`name`', ': The text of the entry.', '', '<!-- kb:fragment-end -->', ''],
        ...['', '', '', '```toml', '[menus.main]', 'weight = 20', '```', ''],
      ].join('\n'),
    );
    expect(doc.directives).toEqual({
      shortcodes: 4,
      includes: 1,
      problems: [{ from: 'content/en/menus/Front.md', target: '../../../outside.md', reason: 'not found' }],
    });
  });

  it("finds the folder's included files, and marks such a file's own document as that fragment", async () => {
    const fragment = join(site, 'content', 'en', '_common', 'props.md');
    writeFileSync(file, page);
    const included = await includedFiles(site, [file, fragment]);
    expect([...included]).toEqual(['content/en/_common/props.md']);
    const own = documentFor(site, fragment, '---\n_comment: fragment\n---\n\n`name`\n: The text of the entry.\n', { fragments: included });
    expect(own.content).toBe('---\n_comment: fragment\n---\n\n<!-- kb:fragment content/en/_common/props.md -->\n\n`name`\n: The text of the entry.\n\n<!-- kb:fragment-end -->\n');
    // A page no other page includes is its own text.
    expect(documentFor(site, file, page, { fragments: included }).content).toBe(documentFor(site, file, page).content);
  });

  it('keeps them as written when asked', () => {
    expect(documentFor(site, file, page, { keepDirectives: true }).content).toBe(page);
  });

  it('leaves MDX import lines and component tags out of .mdx files only', () => {
    const mdx = "import Tabs from '@theme/Tabs';\n\n<Tabs>\n  <TabItem value=\"a\">\n\n  Text for *a*.\n\n  </TabItem>\n</Tabs>\n";
    expect(documentFor(site, join(site, 'page.mdx'), mdx).content).toBe('\n\n\n\nText for *a*.\n\n\n\n');
    expect(documentFor(site, join(site, 'page.md'), mdx).content).toBe(mdx);
  });
});

describe('document naming', () => {
  it('takes the title from front matter, then the first heading, then the file name', () => {
    expect(titleOf('---\ntitle: "From front"\n---\n# Heading\n', 'a.md')).toBe('From front');
    expect(titleOf('intro\n\n## The *first* heading\n', 'a.md')).toBe('The first heading');
    expect(titleOf('plain text', '/x/my-page.md')).toBe('my-page');
    // A heading with no text left falls through to the file name; a byte-order mark and CRLF
    // line endings do not hide front matter.
    expect(titleOf('# ***\n\ntext', '/x/stars.md')).toBe('stars');
    expect(titleOf('#   \n\ntext', '/x/blank.md')).toBe('blank');
    expect(titleOf('\uFEFF---\r\ntitle: Marked\r\n---\r\n# H\r\n', 'a.md')).toBe('Marked');
  });

  it('reads front matter the pipeline ignores quickly, and ignores it too', () => {
    const elapsed = cpuStopwatch();
    expect(titleOf(`---\n${'? '.repeat(2_000)}v\n---\n# Q\n`, 'a.md')).toBe('Q');
    // A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
    expect(elapsed()).toBeLessThan(10_000);
  });

  it('makes the same document in both modes: text made well formed, long titles and paths shortened', () => {
    const doc = documentFor('/r', '/r/a.md', '# Odd\u0000 title\n\nBody\ud800 text');
    expect(doc).toMatchObject({ title: 'Odd\ufffd title', content: '# Odd\ufffd title\n\nBody\ufffd text' });
    expect(documentFor('/r', '/r/long.md', `# ${'x'.repeat(1_500)}`).title).toBe('x'.repeat(1_000));
    const deep = `/r/${'d'.repeat(250)}/${'e'.repeat(250)}/${'f'.repeat(250)}/${'g'.repeat(250)}/page.md`;
    const slug = documentFor('/r', deep, '# Deep').slug!;
    expect(slug).toHaveLength(1_000);
    expect(slug).toMatch(/^d{250}\/e{250}\/.*#[0-9a-f]{16}$/);
    expect(documentFor('/r', deep.replace('page', 'other'), '# Deep').slug).not.toBe(slug);
  });

  it('links a document to the base URL joined with its path, unless its front matter has a url; records its folder', () => {
    expect(documentFor('/r', '/r/guide/install.md', '# I', { baseUrl: 'https://docs.example.com/v2' })).toMatchObject({
      metadata: { url: 'https://docs.example.com/v2/guide/install.md' },
    });
    expect(joinUrl('https://docs.example.com/v2/', 'a b/c#d?.md')).toBe('https://docs.example.com/v2/a%20b/c%23d%3F.md');
    const own = documentFor('/r', '/r/a.md', '---\nurl: https://elsewhere.example.com/a/\n---\n# A\n', { baseUrl: 'https://docs.example.com/' });
    expect(own).not.toHaveProperty('metadata');
    expect(documentFor('/r', '/r/a.md', '# A')).not.toHaveProperty('metadata');
    expect(documentFor('/r', '/r/a.md', '# A', { folder: '/r' })).toMatchObject({ folder: '/r' });
    expect(documentFor('/r', '/r/a.md', '# A')).not.toHaveProperty('folder');
  });

  it('sends technical.md to tech_docs and everything else to user_docs, slugged by relative path', () => {
    expect(documentFor('/r', '/r/a/technical.md', '# T')).toMatchObject({ namespace: 'tech_docs', slug: 'a/technical.md' });
    expect(documentFor('/r', '/r/a/Technical.md', '# T').namespace).toBe('tech_docs');
    expect(documentFor('/r', '/r/b.md', '# B')).toMatchObject({ namespace: 'user_docs', slug: 'b.md', title: 'B' });
  });
});

describe('kb ingest-folder', () => {
  it('parses without writing on --dry-run', async () => {
    const result = await kb(['ingest-folder', docs, '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\+\+\+\+\n4 files: 4 parsed, 0 skipped, 0 failed, \d+ chunks in [\d.]+ s \([\d.]+ files\/s\) \[dry run: nothing written\]\n$/);
  });

  it('ingests every Markdown file, then skips them all when unchanged', async () => {
    const first = await kb(['ingest-folder', docs]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^\+\+\+\+\n4 files: 4 ingested, 0 skipped, 0 failed, [1-9]\d* chunks in/);
    const second = await kb(['ingest-folder', docs]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^\.\.\.\.\n4 files: 0 ingested, 4 skipped, 0 failed, 0 chunks in/);
    writeFileSync(join(docs, 'guide', 'install.md'), '# Installing\n\nRun the new installer.\n');
    const third = await kb(['ingest-folder', docs, '--limit=2']);
    expect(third.stdout).toMatch(/^[+.]{2}\n2 files: 1 ingested, 1 skipped, 0 failed/);
  }, 120_000);

  it('prunes the documents of files gone from the folder, and only those; --dry-run lists them and deletes nothing', async () => {
    const sync = join(work, 'sync');
    const other = join(work, 'other');
    mkdirSync(join(sync, 'sub'), { recursive: true });
    mkdirSync(other);
    writeFileSync(join(sync, 'a.md'), '# A\n\nKept.\n');
    writeFileSync(join(sync, 'b.md'), '# B\n\nRemoved later.\n');
    writeFileSync(join(sync, 'sub', 'technical.md'), '# T\n\nAlso removed later.\n');
    writeFileSync(join(other, 'c.md'), '# C\n\nAnother folder.\n');
    const env = { KB_DATA_DIR: join(work, 'sync-store') };
    const cli = (args: string[]) => run('packages/cli/src/main.ts', ['ingest-folder', ...args], env);
    expect((await cli([sync])).stdout).toMatch(/^\+{3}\n/);
    expect((await cli([other])).stdout).toMatch(/^\+\n/);

    unlinkSync(join(sync, 'b.md'));
    unlinkSync(join(sync, 'sub', 'technical.md'));
    const dry = await cli([sync, '--prune', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^\+\n- tech_docs\/sub\/technical\.md\n- user_docs\/b\.md\n1 files: 1 parsed, 0 skipped, 0 failed, 2 to delete, \d+ chunks in .*\[dry run: nothing written\]\n$/);
    // The dry run deleted nothing: the real run deletes the same two.
    const pruned = await cli([sync, '--prune']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toMatch(/^\.--\n1 files: 0 ingested, 1 skipped, 0 failed, 2 deleted, 0 chunks/);
    expect((await cli([sync, '--prune'])).stdout).toMatch(/^\.\n1 files: 0 ingested, 1 skipped, 0 failed, 0 deleted/);
    // The other folder's document is still there (unchanged), and a file put back comes back new.
    expect((await cli([other, '--prune'])).stdout).toMatch(/^\.\n1 files: 0 ingested, 1 skipped, 0 failed, 0 deleted/);
    writeFileSync(join(sync, 'b.md'), '# B\n\nRemoved later.\n');
    expect((await cli([sync])).stdout).toMatch(/^[.+]{2}\n2 files: 1 ingested, 1 skipped/);
  }, 240_000);

  it('leaves out files by --include, --exclude and .kbignore; says once when links are only file paths', async () => {
    const site = join(work, 'site');
    mkdirSync(join(site, 'content', 'en', '_common'), { recursive: true });
    mkdirSync(join(site, 'content', 'en', 'templates'), { recursive: true });
    writeFileSync(join(site, 'README.md'), '# Readme\n');
    writeFileSync(join(site, 'content', 'en', '_index.md'), '# Home\n');
    writeFileSync(join(site, 'content', 'en', 'templates', '404.md'), '# 404\n\nA page not found. {{< new-in 0.1 />}}\n\n{{% include "_common/fragment.md" %}}\n');
    writeFileSync(join(site, 'content', 'en', 'templates', 'draft.md'), '# Draft\n');
    writeFileSync(join(site, 'content', 'en', '_common', 'fragment.md'), '# Fragment\n');
    writeFileSync(join(site, '.kbignore'), '# not pages\n_common/\n');
    const dry = (args: string[]) => kb(['ingest-folder', site, '--dry-run', ...args]);
    const chosen = await dry(['--include', 'content/**', '--exclude', '**/draft.md', '--base-url', 'https://gohugo.io/']);
    expect(chosen.code, chosen.stderr).toBe(0);
    expect(chosen.stdout).toMatch(/^\+\+\n2 files: 2 parsed/);
    expect(chosen.stdout).toContain("links: 2 of 2 are --base-url joined with the file's path (https://gohugo.io/content/en/_index.md)");
    const mapped = await dry(['--base-url', 'https://gohugo.io/', '--strip-prefix', 'content/en', '--url-template', '{dir}/{name}/']);
    expect(mapped.stdout).toMatch(/^\+{4}\n4 files: 4 parsed/);
    expect(mapped.stdout).not.toContain('links:');
    expect(mapped.stdout).toContain('directives: 2 shortcodes resolved, 1 includes expanded\n');
    const upper = await dry(['--base-url', 'https://gohugo.io/', '--url-case', 'upper']);
    expect(upper.code).toBe(1);
    expect(upper.stderr).toContain('--url-case must be lower or keep');
    const bad = await dry(['--base-url', 'https://gohugo.io/', '--url-template', '{folder}/']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--url-template knows {dir}, {name} and {path} only');
    const orphan = await dry(['--url-template', '{dir}/']);
    expect(orphan.stderr).toContain('give --base-url too');
  }, 240_000);

  it('refuses --prune with --limit, and a --base-url that is not http(s)', async () => {
    const limited = await kb(['ingest-folder', docs, '--prune', '--limit=1']);
    expect(limited.code).toBe(1);
    expect(limited.stderr).toContain('--prune reads the whole folder');
    const base = await kb(['ingest-folder', docs, '--dry-run', '--base-url', 'ftp://example.com/']);
    expect(base.code).toBe(1);
    expect(base.stderr).toContain('--base-url must be an http or https URL');
  });

  it('marks failed files, explains them on stderr and exits non-zero', async () => {
    // Nothing listens on port 9: every POST fails.
    const result = await kb(['ingest-folder', docs, '--api-url', 'http://127.0.0.1:9', '--api-key', `kb_${'A'.repeat(40)}`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^!!!!\n4 files: 0 ingested, 0 skipped, 4 failed in/);
    expect(result.stderr).toContain('install.md');
  });

  it('ingests through a running server what it ingests locally, and skips it all the second time', async () => {
    const odd = join(work, 'odd');
    const deepDir = join(odd, 'd'.repeat(250), 'e'.repeat(250), 'f'.repeat(250), 'g'.repeat(250));
    mkdirSync(deepDir, { recursive: true });
    writeFileSync(join(odd, 'nul.md'), '# Nul\u0000 title\n\nBody\u0000 text.\n');
    writeFileSync(join(odd, 'long.md'), `# ${'word '.repeat(300)}\n\nText.\n`);
    writeFileSync(join(odd, 'stars.md'), '# ***\n\nText under no title.\n');
    writeFileSync(join(odd, 'bom.md'), '\uFEFF---\ntitle: "Bom \\0 title"\n---\nBody.\n');
    writeFileSync(join(odd, 'keys.md'), `---\n${'? '.repeat(400)}v\n---\n# Keys\n\nBody.\n`);
    writeFileSync(join(deepDir, 'page.md'), '# Deep page\n\nFar down.\n');
    const port = await freePort();
    const server = start('apps/server/src/main.ts', [], {
      KB_DATA_DIR: join(work, 'server-store'),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      KB_ADMIN_PASSWORD: 'folder-admin-password',
    });
    try {
      const url = `http://127.0.0.1:${port}`;
      // As long as the other tests allow a server to start on a busy machine.
      const deadline = Date.now() + 120_000;
      for (;;) {
        const up = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
        if (up) break;
        if (Date.now() > deadline) throw new Error('server did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
      const login = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"password":"folder-admin-password"}' });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const created = await fetch(`${url}/api/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{"label":"folder"}' });
      const { key } = (await created.json()) as { key: string };
      const createdAdmin = await fetch(`${url}/api/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{"label":"sync","admin":true}' });
      const { key: adminKey } = (await createdAdmin.json()) as { key: string };
      const remote = await kb(['ingest-folder', odd, '--api-url', url, '--api-key', key]);
      expect(remote.code, remote.stderr).toBe(0);
      expect(remote.stdout).toMatch(/^\+{6}\n6 files: 6 ingested, 0 skipped, 0 failed/);
      const again = await kb(['ingest-folder', odd, '--api-url', url, '--api-key', key]);
      expect(again.stdout).toMatch(/^\.{6}\n6 files: 0 ingested, 6 skipped, 0 failed/);
      const local = await run('packages/cli/src/main.ts', ['ingest-folder', odd], { KB_DATA_DIR: join(work, 'local-store') });
      expect(local.code, local.stderr).toBe(0);
      expect(local.stdout).toMatch(/^\+{6}\n/);
      const titles = await fetch(`${url}/api/v1/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: '{"query":"text under no title","topK":1,"mode":"hybrid"}',
      });
      expect(((await titles.json()) as { results: Array<{ documentTitle: string }> }).results[0]!.documentTitle).toBe('stars');

      // Through the API: links from --base-url, the folder recorded, then a prune.
      const linked = await kb(['ingest-folder', odd, '--api-url', url, '--api-key', key, '--base-url', 'https://docs.example.com/odd/']);
      expect(linked.code, linked.stderr).toBe(0);
      const listed = await fetch(`${url}/api/v1/documents?folder=${encodeURIComponent(realpathSync(odd))}&limit=200`, { headers: { authorization: `Bearer ${adminKey}` } });
      const { documents, total } = (await listed.json()) as { documents: Array<{ id: string; slug: string; url?: string; folder: string }>; total: number };
      expect(total).toBe(6);
      expect(documents.find((d) => d.slug === 'stars.md')).toMatchObject({ url: 'https://docs.example.com/odd/stars.md', folder: realpathSync(odd) });
      unlinkSync(join(odd, 'stars.md'));
      unlinkSync(join(odd, 'long.md'));
      const notAdmin = await kb(['ingest-folder', odd, '--api-url', url, '--api-key', key, '--prune']);
      expect(notAdmin.code).toBe(1);
      expect(notAdmin.stderr).toContain('needs an admin key');
      expect(notAdmin.stdout).toBe(''); // refused before writing anything
      const dry = await kb(['ingest-folder', odd, '--api-url', url, '--api-key', adminKey, '--prune', '--dry-run', '--base-url', 'https://docs.example.com/odd/']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/\n- user_docs\/long\.md\n- user_docs\/stars\.md\n4 files: 4 parsed, 0 skipped, 0 failed, 2 to delete/);
      const pruned = await kb(['ingest-folder', odd, '--api-url', url, '--api-key', adminKey, '--prune', '--base-url', 'https://docs.example.com/odd/']);
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(pruned.stdout).toMatch(/^\.{4}--\n4 files: 0 ingested, 4 skipped, 0 failed, 2 deleted in/);
      const after = await fetch(`${url}/api/v1/documents?folder=${encodeURIComponent(realpathSync(odd))}`, { headers: { authorization: `Bearer ${adminKey}` } });
      expect(((await after.json()) as { total: number }).total).toBe(4);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('exit', r));
    }
  }, 300_000);

  it('builds the vector index once at the end of a load that is large next to the store', async () => {
    const many = join(work, 'many');
    mkdirSync(many);
    for (let i = 0; i < 60; i++) writeFileSync(join(many, `page-${i}.md`), `# Page ${i}\n\nThe ${i}th page of the manual.\n`);
    const env = { KB_DATA_DIR: join(work, 'many-store') };
    const first = await run('packages/cli/src/main.ts', ['ingest-folder', many], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^\+{60}\n60 files: 60 ingested, 0 skipped, 0 failed/);
    expect(first.stderr).toMatch(/^vector index built in [\d.]+ s\n$/);
    // The index is there as this version defines it: nothing to build at the next start.
    const migrated = await run('packages/cli/src/main.ts', ['migrate'], env);
    expect(migrated.stdout).toContain('already up to date');
    expect(migrated.stderr).not.toContain('Building the vector index');
    // Unchanged, the same files are no large load.
    const again = await run('packages/cli/src/main.ts', ['ingest-folder', many], env);
    expect(again.stdout).toMatch(/^\.{60}\n60 files: 0 ingested, 60 skipped/);
    expect(again.stderr).toBe('');
  }, 120_000);

  it('refuses a missing directory with a clear message', async () => {
    const result = await kb(['ingest-folder', join(work, 'nope')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Cannot read');
  });
});
