import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentFor, titleOf } from '../src/commands/ingest-folder.ts';
import { run } from './process.ts';

const work = mkdtempSync(join(tmpdir(), 'kb-folder-'));
const docs = join(work, 'docs');
const dataDir = join(work, 'store');
afterAll(() => rmSync(work, { recursive: true, force: true }));

mkdirSync(join(docs, 'guide', 'deep'), { recursive: true });
writeFileSync(join(docs, 'index.md'), '---\ntitle: Welcome\n---\n# Hello\n\nStart here.\n');
writeFileSync(join(docs, 'guide', 'install.md'), '# Installing\n\nRun the installer.\n');
writeFileSync(join(docs, 'guide', 'technical.md'), '# Internals\n\nThe cache is a ring buffer.\n');
writeFileSync(join(docs, 'guide', 'deep', 'notes.markdown'), 'No heading here, just text.\n');
writeFileSync(join(docs, 'guide', 'image.png'), 'not markdown');

const kb = (args: string[]) => run('packages/cli/src/main.ts', args, { KB_DATA_DIR: dataDir });

describe('document naming', () => {
  it('takes the title from front matter, then the first heading, then the file name', () => {
    expect(titleOf('---\ntitle: "From front"\n---\n# Heading\n', 'a.md')).toBe('From front');
    expect(titleOf('intro\n\n## The *first* heading\n', 'a.md')).toBe('The first heading');
    expect(titleOf('plain text', '/x/my-page.md')).toBe('my-page');
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
  });

  it('marks failed files, explains them on stderr and exits non-zero', async () => {
    // Nothing listens on port 9: every POST fails.
    const result = await kb(['ingest-folder', docs, '--api-url', 'http://127.0.0.1:9', '--api-key', `kb_${'A'.repeat(40)}`]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^!!!!\n4 files: 0 ingested, 0 skipped, 4 failed in/);
    expect(result.stderr).toContain('install.md');
  });

  it('refuses a missing directory with a clear message', async () => {
    const result = await kb(['ingest-folder', join(work, 'nope')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Cannot read');
  });
});
