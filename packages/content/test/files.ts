// Real files for tests, made by the generators people make them with (test-only: the server
// never imports this). A committed PDF from groff and Ghostscript (fixtures/) stands beside them.
import { readFileSync } from 'node:fs';
import { AlignmentType, Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import { Zip, ZipDeflate, zipSync, strToU8 } from 'fflate';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import PDFKit from 'pdfkit';

export const sentence = (page: number, line: number): string =>
  `Page ${page} line ${line}: rotate the key, deploy it, then revoke the old one.`;

/** A PDF by pdf-lib: each page a 20-point "Chapter N" heading over 11-point lines; no outline. */
export async function pdfLibPdf(pages: number, options: { title?: string } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (options.title) doc.setTitle(options.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`Chapter ${p}`, { x: 50, y: 740, size: 20, font: bold });
    for (let i = 0; i < 6; i++) page.drawText(sentence(p, i), { x: 50, y: 700 - i * 18, size: 11, font });
  }
  return doc.save();
}

/** A PDF by PDFKit with an outline entry per page (and a user password when given: RC4-encrypted). */
export function pdfKitPdf(pages: number, options: { userPassword?: string; coverTitle?: string } = {}): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const doc = new PDFKit({ autoFirstPage: false, ...(options.userPassword ? { userPassword: options.userPassword, pdfVersion: '1.4' as const } : {}) });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
    for (let p = 1; p <= pages; p++) {
      doc.addPage();
      // A cover title above the first section, in no outline entry and no metadata (as LaTeX's hyperref sets it).
      if (p === 1 && options.coverTitle) doc.font('Helvetica-Bold').fontSize(24).text(options.coverTitle);
      doc.outline.addItem(`Section ${p}`);
      doc.font('Helvetica-Bold').fontSize(16).text(`Section ${p}`);
      doc.font('Helvetica').fontSize(11);
      for (let i = 0; i < 6; i++) doc.text(sentence(p, i));
    }
    doc.end();
  });
}

/** A "scanned" PDF: one page holding only an image, no text layer. */
export async function scannedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const image = await doc.embedPng(png);
  doc.addPage([612, 792]).drawImage(image, { x: 0, y: 0, width: 612, height: 792 });
  return doc.save();
}

/** Three pages of a man page set by groff and turned into PDF by Ghostscript's ps2pdf (committed: neither is a dependency). */
export function ghostscriptPdf(): Uint8Array {
  return new Uint8Array(readFileSync(new URL('./fixtures/groff-ghostscript.pdf', import.meta.url)));
}

/** A Word document by the docx package: headings, a bulleted and a numbered list, a table, a code paragraph. */
export function wordDocx(): Promise<Uint8Array> {
  const doc = new Document({
    numbering: { config: [{ reference: 'steps', levels: [{ level: 0, format: 'decimal', text: '%1.', alignment: AlignmentType.START }] }] },
    styles: { paragraphStyles: [{ id: 'Code', name: 'Code', basedOn: 'Normal', run: { font: 'Courier New' } }] },
    sections: [
      {
        children: [
          new Paragraph({ text: 'Travel policy', heading: HeadingLevel.HEADING_1 }),
          new Paragraph('Employees book travel through the portal.'),
          new Paragraph({ text: 'Allowances', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Meals up to 40 EUR a day', bullet: { level: 0 } }),
          new Paragraph({ text: 'Hotels up to 150 EUR a night', bullet: { level: 0 } }),
          new Paragraph({ text: 'Claiming', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({ text: 'Scan the receipts', numbering: { reference: 'steps', level: 0 } }),
          new Paragraph({ text: 'Submit the claim', numbering: { reference: 'steps', level: 0 } }),
          new Table({
            rows: [
              new TableRow({ children: [new TableCell({ children: [new Paragraph('City')] }), new TableCell({ children: [new Paragraph('Limit')] })] }),
              new TableRow({ children: [new TableCell({ children: [new Paragraph('Paris')] }), new TableCell({ children: [new Paragraph('180')] })] }),
            ],
          }),
          new Paragraph({ style: 'Code', children: [new TextRun('kb ingest-folder ./policies')] }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc).then((buffer) => new Uint8Array(buffer));
}

/**
 * A Word file that is a zip bomb: a small archive whose word/document.xml inflates to
 * `inflatedMb` megabytes (streamed in, so building it holds one megabyte at a time; its CRC is right).
 */
export function zipBombDocx(inflatedMb: number): Uint8Array {
  // Deflating tens of megabytes in JavaScript takes seconds: made once per size.
  let bomb = bombs.get(inflatedMb);
  if (!bomb) bombs.set(inflatedMb, (bomb = buildZipBomb(inflatedMb)));
  return bomb;
}

const bombs = new Map<number, Uint8Array>();

function buildZipBomb(inflatedMb: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    parts.push(chunk);
  });
  const types = new ZipDeflate('[Content_Types].xml');
  zip.add(types);
  types.push(strToU8('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'), true);
  const document = new ZipDeflate('word/document.xml', { level: 1 });
  zip.add(document);
  const megabyte = new Uint8Array(1024 * 1024).fill(0x20);
  document.push(strToU8('<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'));
  for (let i = 0; i < inflatedMb; i++) document.push(megabyte);
  document.push(strToU8('</w:body></w:document>'), true);
  zip.end();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A ZIP archive that is not a Word document. */
export function plainZip(): Uint8Array {
  return zipSync({ 'notes.txt': strToU8('not a document') });
}

/** A PDF's text page by page with the library the service reads PDFs with, and nothing else: the benchmark's yardstick. */
export async function pdfTextAlone(bytes: Uint8Array): Promise<string[]> {
  const { getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0 });
  const pages: string[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const content = await page.getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
    page.cleanup();
  }
  await pdf.destroy();
  return pages;
}
