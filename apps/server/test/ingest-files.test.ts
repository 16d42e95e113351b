import { ghostscriptPdf, pdfKitPdf, pdfLibPdf, scannedPdf, wordDocx, zipBombDocx } from '@kb/content/testing';
import { testStoreKinds } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';
import { securitySuite } from './security.ts';

const kinds = await testStoreKinds();
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A multipart body: `file` parts (name, type, bytes) and fields. */
function form(files: Array<[string, string, Uint8Array]>, fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  for (const [name, type, bytes] of files) body.append('file', new Blob([bytes], { type }), name);
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
}

describe.each(kinds)('POST /api/v1/ingest/file (%s)', (kind) => {
  let service: TestService;
  let key: string;
  const post = (body: RequestInit['body'], init: { query?: string; type?: string; key?: string } = {}) =>
    service.api(`/api/v1/ingest/file${init.query ? `?${init.query}` : ''}`, {
      method: 'POST',
      key: init.key ?? key,
      body,
      ...(init.type ? { headers: { 'content-type': init.type } } : {}),
    });
  const search = (query: string) => service.api('/api/v1/search', { method: 'POST', key, json: { query, topK: 5 } }).then(json);

  beforeAll(async () => {
    service = await startTestService(kind, { env: { KB_MAX_FILE_BYTES: String(2 * 1024 * 1024) } });
    key = (await service.createKey()).key;
  });
  afterAll(() => service?.close());

  it('takes a PDF as the raw body, fields in the query; the same file again is skipped', async () => {
    const pdf = await pdfLibPdf(3, { title: 'Key rotation guide' });
    const res = await post(pdf, { type: 'application/pdf', query: 'namespace=user_docs&filename=keys.pdf&url=https://docs.example.com/keys.pdf' });
    expect(res.status).toBe(200);
    const first = await json(res);
    expect(first).toEqual({ documentId: expect.any(String), skipped: false, format: 'pdf', pages: 3, filename: 'keys.pdf' });
    const again = await json(await post(pdf, { type: 'application/pdf', query: 'namespace=user_docs&filename=keys.pdf&url=https://docs.example.com/keys.pdf' }));
    expect(again).toMatchObject({ documentId: first.documentId, skipped: true });
    const found = await search('Page 2 line 3 revoke');
    expect(found.results[0]).toMatchObject({
      documentId: first.documentId,
      documentTitle: 'Key rotation guide',
      slug: 'keys.pdf',
      url: 'https://docs.example.com/keys.pdf',
      headingPath: 'Key rotation guide > Chapter 2',
      page: 2,
    });
    expect(found.results[0].content).not.toContain('kb:page');
    // An answer cites the page: url#page=N.
    const answer = await json(await service.api('/api/v1/chat', { method: 'POST', key, json: { message: 'What does page 3 line 4 say about revoking?', stream: false } }));
    expect(answer.sources[0]).toMatchObject({ documentId: first.documentId, url: 'https://docs.example.com/keys.pdf', anchor: 'page=3', page: 3 });
    // Markdown has no pages.
    await service.api('/api/v1/ingest/md', { method: 'POST', key, json: { title: 'Plain', content: '# Plain\n\nNo pages in unusual zebra text.\n', namespace: 'user_docs' } });
    expect((await search('unusual zebra')).results[0]).not.toHaveProperty('page');
  });

  it('takes several files in a multipart form, each answered on its own', async () => {
    const res = await post(
      form([
        ['policy.docx', DOCX, await wordDocx()],
        ['manual.pdf', 'application/pdf', ghostscriptPdf()],
        ['scan.pdf', 'application/pdf', await scannedPdf()],
        ['notes.md', 'text/markdown', new TextEncoder().encode('# Release notes\n\nDark mode arrives in version 2.\n')],
      ]),
      { query: '' },
    );
    // No namespace: refused as invalid input, naming the field.
    expect(res.status).toBe(400);
    expect((await json(res)).message).toMatch(/namespace/);
    const ok = await post(
      form(
        [
          ['policy.docx', DOCX, await wordDocx()],
          ['manual.pdf', 'application/pdf', ghostscriptPdf()],
          ['scan.pdf', 'application/pdf', await scannedPdf()],
          ['notes.md', 'text/markdown', new TextEncoder().encode('# Release notes\n\nDark mode arrives in version 2.\n')],
        ],
        { namespace: 'tech_docs' },
      ),
    );
    expect(ok.status).toBe(200);
    const body = await json(ok);
    expect(body.documents).toEqual([
      { filename: 'policy.docx', documentId: expect.any(String), skipped: false, format: 'docx' },
      { filename: 'manual.pdf', documentId: expect.any(String), skipped: false, format: 'pdf', pages: expect.any(Number) },
      { filename: 'scan.pdf', error: { code: 'UNPROCESSABLE_CONTENT', message: expect.stringMatching(/^scan\.pdf: .*OCR is not supported/) } },
      { filename: 'notes.md', documentId: expect.any(String), skipped: false, format: 'markdown' },
    ]);
    const hotels = await search('hotels a night allowance');
    expect(hotels.results[0]).toMatchObject({ documentTitle: 'Travel policy', slug: 'policy.docx', namespace: 'tech_docs' });
  });

  it('refuses bad files with the reason, writing nothing, and never answers 500', async () => {
    const before = (await json(await service.api('/api/v1/documents?namespace=user_docs', { key }))).total;
    const whole = await pdfKitPdf(3);
    const cases: Array<[RequestInit['body'], string, number, RegExp]> = [
      [await scannedPdf(), 'application/pdf', 422, /no text layer .*OCR is not supported/],
      [await pdfKitPdf(1, { userPassword: 'secret' }), 'application/pdf', 422, /encrypted/],
      [whole.subarray(0, whole.length >> 1), 'application/pdf', 422, /truncated or damaged/],
      [await pdfLibPdf(1), 'text/plain', 422, /The content is a PDF, not plain text as declared/],
      [new TextEncoder().encode('hello'), DOCX, 422, /not a Word \(\.docx\) document as declared/],
      [zipBombDocx(70), DOCX, 422, /zip bomb/],
      [new Uint8Array(3 * 1024 * 1024), 'application/pdf', 413, /larger than the limit of 2097152 bytes/],
      [new TextEncoder().encode('GIF89a'), 'image/gif', 415, /Unsupported content type "image\/gif": send multipart\/form-data, or the file with its type: PDF/],
    ];
    for (const [body, type, status, message] of cases) {
      const res = await post(body, { type, query: 'namespace=user_docs&title=Bad' });
      expect(res.status, `${type} ${message}`).toBe(status);
      expect((await json(res)).message).toMatch(message);
    }
    const unsupported = await post(form([['image.png', 'image/png', new Uint8Array([0x89, 0x50, 0x4e, 0x47])]], { namespace: 'user_docs' }));
    expect(unsupported.status).toBe(415);
    expect((await json(unsupported)).message).toMatch(/^image\.png: Unsupported file type "image\/png": send PDF/);
    expect((await json(await service.api('/api/v1/documents?namespace=user_docs', { key }))).total).toBe(before);
  });

  it('refuses malformed requests: no key, unknown fields, query fields with a form, title for several files', async () => {
    const pdf = await pdfLibPdf(1);
    expect((await post(pdf, { type: 'application/pdf', query: 'namespace=user_docs', key: 'kb_wrong' })).status).toBe(401);
    expect((await post(pdf, { type: 'application/pdf', query: 'namespace=user_docs&colour=red' })).status).toBe(400);
    const queryWithForm = await post(form([['a.pdf', 'application/pdf', pdf]], { namespace: 'user_docs' }), { query: 'title=A' });
    expect(queryWithForm.status).toBe(400);
    const extraField = await post(form([['a.pdf', 'application/pdf', pdf]], { namespace: 'user_docs', colour: 'red' }));
    expect((await json(extraField)).message).toMatch(/Unknown form field "colour"/);
    const titled = await post(form([['a.pdf', 'application/pdf', pdf], ['b.pdf', 'application/pdf', pdf]], { namespace: 'user_docs', title: 'One' }));
    expect(titled.status).toBe(400);
    const broken = await post('--x\r\nnot a part', { type: 'multipart/form-data; boundary=x', query: '' });
    expect(broken.status).toBe(400);
    const untitled = await post(new TextEncoder().encode('plain words only'), { type: 'text/plain', query: 'namespace=user_docs' });
    expect(untitled.status).toBe(400);
    expect((await json(untitled)).message).toMatch(/title is required/);
  });

  describe('security', () => {
    securitySuite(() => service, [{ procedure: 'ingest.file', raw: { body: '# Notes\n\nText.\n', type: 'text/markdown' } }]);
  });
});
