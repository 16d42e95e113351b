import { afterAll, describe, expect, it } from 'vitest';
import { splitDocument } from '../prepare.ts';
import { convertFileOffThread, stopWorkerPool } from '../worker/pool.ts';
import { convertFile } from './convert.ts';
import { checkDocxArchive } from './docx.ts';
import { FileConversionError } from './errors.ts';
import { DOCX_TYPE } from './formats.ts';
import { ghostscriptPdf, pdfKitPdf, pdfLibPdf, plainZip, scannedPdf, wordDocx, zipBombDocx } from '../../test/files.ts';

afterAll(() => stopWorkerPool());

async function refusal(promise: Promise<unknown>): Promise<FileConversionError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileConversionError);
  return error as FileConversionError;
}

const pagesOf = (markdown: string, title = 'T') => splitDocument({ title, content: markdown }).children.map((c) => c.page);

describe('convertFile: PDF', () => {
  it('reads a pdf-lib PDF page by page, headings from the font sizes, each chunk on its page', async () => {
    const converted = await convertFile({ bytes: await pdfLibPdf(3, { title: 'Key guide' }), mediaType: 'application/pdf' });
    expect(converted).toMatchObject({ format: 'pdf', title: 'Key guide', pages: 3 });
    expect(converted.markdown).toContain('<!-- kb:page 2 -->\n\n# Chapter 2\n\nPage 2 line 0: rotate the key');
    const split = splitDocument({ title: 'Key guide', content: converted.markdown });
    expect(split.children.map((c) => [c.headingPath, c.page])).toEqual([
      ['Key guide > Chapter 1', 1],
      ['Key guide > Chapter 2', 2],
      ['Key guide > Chapter 3', 3],
    ]);
    expect(split.children.every((c) => !c.content.includes('kb:page'))).toBe(true);
    expect(split.parents.every((p) => !p.content.includes('kb:page'))).toBe(true);
  });

  it('takes headings from a PDFKit outline', async () => {
    const converted = await convertFile({ bytes: await pdfKitPdf(2), mediaType: 'application/pdf' });
    expect(converted.markdown).toMatch(/<!-- kb:page 1 -->\n\n# Section 1\n/);
    expect(converted.markdown).toMatch(/<!-- kb:page 2 -->\n\n# Section 2\n/);
    expect(converted.title).toBe('Section 1');
  });

  it("names a PDF without a metadata title by its cover title, not its first outline entry", async () => {
    const converted = await convertFile({ bytes: await pdfKitPdf(2, { coverTitle: 'Shared MIME-info Database' }), mediaType: 'application/pdf' });
    expect(converted.markdown).toMatch(/# Section 1\n/);
    expect(converted.title).toBe('Shared MIME-info Database');
  });

  it('reads a groff + Ghostscript PDF, pages without headings of their own kept apart', async () => {
    const converted = await convertFile({ bytes: ghostscriptPdf(), mediaType: 'application/pdf' });
    expect(converted.pages).toBeGreaterThanOrEqual(3);
    expect(converted.markdown).toContain('CHAPTER 1');
    expect(converted.markdown).toContain('Page 3 paragraph 0');
    const pages = pagesOf(converted.markdown);
    expect(pages[0]).toBe(1);
    expect(pages.at(-1)).toBeGreaterThanOrEqual(3);
    expect([...pages].sort((a, b) => a! - b!)).toEqual(pages);
  });

  it('refuses a scan (no text layer), an encrypted PDF and a truncated one, saying why', async () => {
    expect(await refusal(convertFile({ bytes: await scannedPdf(), mediaType: 'application/pdf' }))).toMatchObject({ kind: 'no-text', message: expect.stringMatching(/OCR is not supported/) });
    expect(await refusal(convertFile({ bytes: await pdfKitPdf(1, { userPassword: 'secret' }), mediaType: 'application/pdf' }))).toMatchObject({ kind: 'encrypted' });
    const whole = await pdfKitPdf(3);
    expect(await refusal(convertFile({ bytes: whole.subarray(0, Math.floor(whole.length / 3)), mediaType: 'application/pdf' }))).toMatchObject({ kind: 'corrupt' });
  });
});

describe('convertFile: Word', () => {
  it('keeps headings, lists, tables and code as Markdown', async () => {
    const converted = await convertFile({ bytes: await wordDocx(), mediaType: DOCX_TYPE });
    expect(converted.title).toBe('Travel policy');
    expect(converted.markdown).toContain('# Travel policy');
    expect(converted.markdown).toContain('## Allowances');
    expect(converted.markdown).toMatch(/^- Meals up to 40 EUR a day$/m);
    expect(converted.markdown).toMatch(/^1\. Scan the receipts$/m);
    expect(converted.markdown).toMatch(/\| City +\| Limit +\|/);
    expect(converted.markdown).toMatch(/```\nkb ingest-folder \.\/policies\n```/);
  });

  it('counts the bytes an archive inflates to, whatever it declares', () => {
    const small = zipBombDocx(6);
    expect(small.length).toBeLessThan(64 * 1024);
    expect(() => checkDocxArchive(small, 4 * 1024 * 1024)).toThrow(/more than 4 MB/);
    expect(() => checkDocxArchive(small, 8 * 1024 * 1024)).not.toThrow();
  });

  it('refuses a zip bomb over the real limit', async () => {
    const bomb = zipBombDocx(70);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(await refusal(convertFile({ bytes: bomb, filename: 'bomb.docx' }))).toMatchObject({ kind: 'limits', message: expect.stringMatching(/zip bomb/) });
  });

  it('refuses a ZIP that is not a Word document, and a truncated one', async () => {
    expect(await refusal(convertFile({ bytes: plainZip(), mediaType: DOCX_TYPE }))).toMatchObject({ kind: 'corrupt' });
    const docx = await wordDocx();
    expect(await refusal(convertFile({ bytes: docx.subarray(0, docx.length - 200), mediaType: DOCX_TYPE }))).toMatchObject({ kind: 'corrupt' });
  });
});

describe('convertFile: types', () => {
  const text = (s: string) => new TextEncoder().encode(s);

  it('reads HTML (main content), Markdown and text', async () => {
    const html = await convertFile({ bytes: text('<html><head><title>Setup</title></head><body><nav>Menu</nav><main><h1>Setup</h1><p>Run it.</p></main></body></html>'), mediaType: 'text/html; charset=utf-8' });
    expect(html).toMatchObject({ format: 'html', title: 'Setup' });
    expect(html.markdown).toContain('Run it.');
    expect(html.markdown).not.toContain('Menu');
    expect(await convertFile({ bytes: text('# Notes\n\nText.\n'), mediaType: 'text/plain', filename: 'notes.md' })).toMatchObject({ format: 'markdown', title: 'Notes' });
    expect(await convertFile({ bytes: text('plain words'), mediaType: 'text/plain' })).toMatchObject({ format: 'text', markdown: 'plain words' });
  });

  it('tells an untyped file by its name, else by its content', async () => {
    const pdf = await pdfLibPdf(1);
    expect((await convertFile({ bytes: pdf, mediaType: 'application/octet-stream', filename: 'a.pdf' })).format).toBe('pdf');
    expect((await convertFile({ bytes: pdf })).format).toBe('pdf');
    expect(await refusal(convertFile({ bytes: text('hello') }))).toMatchObject({ kind: 'unsupported' });
    // An untyped image is named for what it is, not as a type that could not be told.
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
    expect(await refusal(convertFile({ bytes: png, mediaType: 'application/octet-stream', filename: 'diagram.bin' }))).toMatchObject({
      kind: 'unsupported',
      message: expect.stringMatching(/^The content is image\/png \(\.png\), a type the service does not read: send PDF/),
    });
  });

  it('refuses content that is not its declared type, and unsupported types naming the supported ones', async () => {
    const pdf = await pdfLibPdf(1);
    expect(await refusal(convertFile({ bytes: pdf, mediaType: 'text/plain' }))).toMatchObject({ kind: 'mismatch', message: 'The content is a PDF, not plain text as declared' });
    expect(await refusal(convertFile({ bytes: text('hello'), mediaType: 'application/pdf' }))).toMatchObject({ kind: 'mismatch' });
    expect(await refusal(convertFile({ bytes: pdf, mediaType: DOCX_TYPE }))).toMatchObject({ kind: 'mismatch' });
    expect(await refusal(convertFile({ bytes: new Uint8Array([0x41, 0, 0x42]), mediaType: 'text/markdown' }))).toMatchObject({ kind: 'mismatch' });
    expect(await refusal(convertFile({ bytes: text('x'), mediaType: 'image/png' }))).toMatchObject({ kind: 'unsupported', message: expect.stringMatching(/PDF.*Word.*HTML.*Markdown.*plain text/) });
  });
});

describe('convertFileOffThread', () => {
  it('converts in the files pool, and its refusals keep their kind across the thread', async () => {
    expect((await convertFileOffThread({ bytes: await pdfLibPdf(2), mediaType: 'application/pdf' })).pages).toBe(2);
    expect(await refusal(convertFileOffThread({ bytes: await scannedPdf(), mediaType: 'application/pdf' }))).toMatchObject({ kind: 'no-text' });
    expect(await refusal(convertFileOffThread({ bytes: zipBombDocx(70), filename: 'bomb.docx' }))).toMatchObject({ kind: 'limits' });
    expect((await convertFileOffThread({ bytes: await wordDocx(), filename: 'policy.docx' })).format).toBe('docx');
  });
});
