import { Unzip, UnzipInflate } from 'fflate';
import mammoth from 'mammoth';
import { htmlToMarkdown } from '../html/index.ts';
import { FileConversionError } from './errors.ts';

/**
 * Most bytes a Word file's parts (other than its images, which are not read) may inflate to. A
 * 500-page report's document.xml is about 10 MB; the converter holds the XML as text and as a
 * tree, several times its size, in a worker whose heap is bounded too.
 */
export const MAX_DOCX_INFLATED_BYTES = 64 * 1024 * 1024;

/** Compressed bytes handed to the inflater at a time: the most one push can inflate to is about 1,000 times as much. */
const PUSH_BYTES = 16 * 1024;

/** Media (images) are not converted, so they are neither inflated nor counted. */
const isMedia = (name: string): boolean => /^word\/media\//i.test(name);

/**
 * Inflates the archive's parts as a stream, counting the bytes they inflate to, and refuses it
 * past `maxBytes`: declared sizes are not trusted (a bomb can declare anything). Also refuses an
 * archive that is not a Word document (no word/document.xml).
 */
export function checkDocxArchive(bytes: Uint8Array, maxBytes = MAX_DOCX_INFLATED_BYTES): void {
  let inflated = 0;
  let document = false;
  const unzip = new Unzip((file) => {
    if (file.name === 'word/document.xml') document = true;
    if (isMedia(file.name)) return;
    file.ondata = (error, chunk) => {
      if (error) throw error;
      inflated += chunk.length;
      if (inflated > maxBytes) {
        throw new FileConversionError('limits', `The Word file inflates to more than ${Math.round(maxBytes / 1024 / 1024)} MB of text and markup: refused as a possible zip bomb`);
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < bytes.length; at += PUSH_BYTES) unzip.push(bytes.subarray(at, Math.min(at + PUSH_BYTES, bytes.length)), at + PUSH_BYTES >= bytes.length);
    if (bytes.length === 0) unzip.push(new Uint8Array(0), true);
  } catch (error) {
    if (error instanceof FileConversionError) throw error;
    throw new FileConversionError('corrupt', `The Word file could not be read (${(error as Error).message}): it may be truncated or damaged`);
  }
  if (!document) throw new FileConversionError('corrupt', 'The file is a ZIP archive without word/document.xml: not a Word (.docx) document, or a damaged one');
}

/**
 * Word styles kept as Markdown structure beyond mammoth's defaults (headings, lists, tables,
 * bold, italics): paragraphs in a code style become code blocks, characters in one inline code.
 */
const STYLE_MAP = [
  "p[style-name='Code'] => pre:separator('\\n')",
  "p[style-name='Source Code'] => pre:separator('\\n')",
  "p[style-name='HTML Preformatted'] => pre:separator('\\n')",
  "p[style-name='Plain Text'] => pre:separator('\\n')",
  "r[style-name='Code Char'] => code",
  "r[style-name='Verbatim Char'] => code",
  "r[style-name='HTML Code'] => code",
];

/** A Word (.docx) document as Markdown: mammoth's HTML, converted as pages are. */
export async function docxToMarkdown(bytes: Uint8Array): Promise<{ markdown: string; title: string | null }> {
  checkDocxArchive(bytes);
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        styleMap: STYLE_MAP,
        // Images are not read: they become their alt text.
        convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: '' })),
        externalFileAccess: false,
      },
    );
    html = result.value;
  } catch (error) {
    throw new FileConversionError('corrupt', `The Word file could not be read (${(error as Error).message}): it may be truncated or damaged`);
  }
  const converted = htmlToMarkdown(`<html><body><main>${html}</main></body></html>`);
  return { markdown: converted.markdown, title: converted.title };
}
