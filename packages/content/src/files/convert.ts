import { fileTypeFromBuffer } from 'file-type';
import { htmlToMarkdown } from '../html/index.ts';
import { docxToMarkdown } from './docx.ts';
import { FileConversionError } from './errors.ts';
import { declaredFormat, SUPPORTED_FILE_TYPES, type FileFormat } from './formats.ts';
import { pdfToMarkdown } from './pdf.ts';

export interface FileInput {
  bytes: Uint8Array;
  /** The declared media type (Content-Type), parameters allowed. */
  mediaType?: string | undefined;
  /** The file's name, when it has one (its extension decides an untyped file's format). */
  filename?: string | undefined;
}

export interface ConvertedFile {
  format: FileFormat;
  /** Markdown; a PDF's has a page marker before each page (see markers.ts). */
  markdown: string;
  /** The title the file gives itself (a PDF's metadata, an HTML page's title, the first heading), or null. */
  title: string | null;
  /** A PDF's page count. */
  pages?: number;
}

/** What sniffing the content says it is, for messages. */
function describe(sniffed: { mime: string; ext: string } | undefined): string {
  if (!sniffed) return 'text or data of no known binary format';
  if (sniffed.mime === 'application/pdf') return 'a PDF';
  if (sniffed.ext === 'docx') return 'a Word (.docx) document';
  if (sniffed.ext === 'zip') return 'a ZIP archive';
  return `${sniffed.mime} (.${sniffed.ext})`;
}

const FORMAT_NAMES: Record<FileFormat, string> = { pdf: 'a PDF', docx: 'a Word (.docx) document', html: 'HTML', text: 'plain text', markdown: 'Markdown' };

/** The format sniffing gives binary content, if it is one the service reads. */
function sniffedFormat(sniffed: { mime: string; ext: string } | undefined): FileFormat | undefined {
  if (sniffed?.mime === 'application/pdf') return 'pdf';
  if (sniffed?.ext === 'docx') return 'docx';
  return undefined;
}

/** Text content: valid UTF-8 without NUL characters (binary data sent as text is refused). */
function decodeText(bytes: Uint8Array, format: FileFormat): string {
  if (bytes.subarray(0, 64 * 1024).includes(0)) {
    throw new FileConversionError('mismatch', `The content is binary data, not ${FORMAT_NAMES[format]} as declared`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new FileConversionError('mismatch', `The content is not UTF-8 text, as ${FORMAT_NAMES[format]} must be`);
  }
}

function firstHeading(markdown: string): string | null {
  const match = /^#{1,6}[ \t]+(.+?)[ \t#]*$/m.exec(markdown);
  return match ? match[1]!.trim() : null;
}

/**
 * A file as Markdown: its format from its declared type (or, for an untyped file, its name, else
 * its content), checked against what its content is; then PDF text page by page, Word documents
 * through mammoth's HTML, HTML's main content, text and Markdown as they are. Throws a
 * FileConversionError saying what is wrong with the file. Runs untrusted parsers: call it where
 * its memory and time are bounded (the worker pool's `convertFile` task).
 */
export async function convertFile(input: FileInput): Promise<ConvertedFile> {
  const { bytes } = input;
  const declared = declaredFormat(input.mediaType, input.filename);
  if (declared === null) {
    const type = (input.mediaType ?? '').split(';')[0]!.trim();
    throw new FileConversionError('unsupported', `Unsupported file type "${type}": send ${SUPPORTED_FILE_TYPES}`);
  }
  const sniffed = bytes.length > 0 ? await fileTypeFromBuffer(bytes) : undefined;
  const format = declared ?? sniffedFormat(sniffed);
  if (format === undefined) {
    // Content of a known binary type the service does not read (an image): named, not "unknown".
    if (sniffed) throw new FileConversionError('unsupported', `The content is ${describe(sniffed)}, a type the service does not read: send ${SUPPORTED_FILE_TYPES}`);
    throw new FileConversionError('unsupported', `The file's type could not be told (no type, no known extension): send ${SUPPORTED_FILE_TYPES}`);
  }
  const binary = format === 'pdf' || format === 'docx';
  // A binary format must sniff as itself (a PDF starts %PDF-; a docx is a ZIP with word/ parts);
  // text must not sniff as a binary format (XML is text: XHTML sniffs as it).
  const matches = binary ? sniffedFormat(sniffed) === format || (format === 'docx' && sniffed?.ext === 'zip') : sniffed === undefined || sniffed.ext === 'xml';
  if (!matches) throw new FileConversionError('mismatch', `The content is ${describe(sniffed)}, not ${FORMAT_NAMES[format]} as declared`);
  switch (format) {
    case 'pdf': {
      const pdf = await pdfToMarkdown(bytes);
      return { format, markdown: pdf.markdown, title: pdf.title ?? firstHeading(pdf.markdown), pages: pdf.pages };
    }
    case 'docx': {
      const docx = await docxToMarkdown(bytes);
      return { format, markdown: docx.markdown, title: docx.title ?? firstHeading(docx.markdown) };
    }
    case 'html': {
      const html = htmlToMarkdown(decodeText(bytes, format));
      return { format, markdown: html.markdown, title: html.title };
    }
    case 'markdown': {
      const text = decodeText(bytes, format);
      return { format, markdown: text, title: firstHeading(text) };
    }
    case 'text':
      return { format, markdown: decodeText(bytes, format), title: null };
  }
}
