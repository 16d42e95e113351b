import { getDocumentProxy } from 'unpdf';
import { FileConversionError } from './errors.ts';
import { pageMarker } from './markers.ts';

/** A PDF's text as Markdown, a page marker before each page's text (see markers.ts). */
export interface PdfText {
  markdown: string;
  /**
   * The document's own title: its metadata's Title, else the largest line of its first page when
   * it stands out as a heading (a cover title, which an outline often leaves out), if any.
   */
  title: string | null;
  pages: number;
}

interface Line {
  text: string;
  /** The largest font size on the line. */
  size: number;
}

interface TextItem {
  str: string;
  transform: number[];
  hasEOL: boolean;
}

/** A line at least this much larger than the body text, and short, is a heading. */
const HEADING_SIZE_RATIO = 1.15;
const MAX_HEADING_CHARS = 120;

/** What a line must not start with to stay a paragraph line in Markdown (a heading, a quote, a fence, a setext underline). */
const MARKDOWN_LINE_START = /^(?:#|>|```|~~~|[-=]+\s*$|[-*+] |\d+[.)] )/;

function escapeLine(text: string): string {
  const escaped = text.replace(/[<`*_[\]\\]/g, '\\$&');
  return MARKDOWN_LINE_START.test(escaped) ? `\\${escaped}` : escaped;
}

/** The page's text items as lines, with each line's largest font size. */
function linesOf(items: readonly TextItem[]): Line[] {
  const lines: Line[] = [];
  let text = '';
  let size = 0;
  const end = (): void => {
    const trimmed = text.replace(/\s+/g, ' ').trim();
    if (trimmed !== '') lines.push({ text: trimmed, size });
    text = '';
    size = 0;
  };
  for (const item of items) {
    text += item.str;
    // The font size is the text matrix's vertical scale.
    if (item.str.trim() !== '') size = Math.max(size, Math.hypot(item.transform[2] ?? 0, item.transform[3] ?? 0));
    if (item.hasEOL) end();
  }
  end();
  return lines;
}

/** The body text's size: the size most characters are set in. */
function bodySize(pages: readonly Line[][]): number {
  const chars = new Map<number, number>();
  for (const line of pages.flat()) {
    const size = Math.round(line.size * 10) / 10;
    chars.set(size, (chars.get(size) ?? 0) + line.text.length);
  }
  let best = 0;
  let most = -1;
  for (const [size, count] of chars) {
    if (count > most) [best, most] = [size, count];
  }
  return best;
}

function normalize(text: string): string {
  return text.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();
}

type OutlineNode = { title: string; dest: unknown; items: OutlineNode[] };

/**
 * The outline's entries by page (1-based), with their depth (1 for the top level): the
 * document's own headings, when its author gave it an outline.
 */
async function outlineByPage(pdf: Awaited<ReturnType<typeof getDocumentProxy>>): Promise<Map<number, Array<{ title: string; depth: number }>>> {
  const byPage = new Map<number, Array<{ title: string; depth: number }>>();
  const outline = ((await pdf.getOutline()) ?? []) as OutlineNode[];
  const visit = async (nodes: readonly OutlineNode[], depth: number): Promise<void> => {
    for (const node of nodes) {
      try {
        const dest = typeof node.dest === 'string' ? await pdf.getDestination(node.dest) : node.dest;
        const ref = Array.isArray(dest) ? dest[0] : undefined;
        const index = typeof ref === 'number' ? ref : ref && typeof ref === 'object' ? await pdf.getPageIndex(ref as never) : undefined;
        const title = node.title.replace(/\s+/g, ' ').trim();
        if (index !== undefined && title !== '') byPage.set(index + 1, [...(byPage.get(index + 1) ?? []), { title, depth }]);
      } catch {
        // An entry pointing nowhere is left out; the text is what matters.
      }
      if (node.items.length > 0 && depth < 6) await visit(node.items, depth + 1);
    }
  };
  await visit(outline, 1);
  return byPage;
}

/** Why pdf.js refused a document, as a conversion error. */
function refusal(error: unknown): FileConversionError {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'PasswordException') return new FileConversionError('encrypted', 'The PDF is encrypted with a password; send it without the password protection');
  return new FileConversionError('corrupt', `The PDF could not be read (${message.replace(/\.$/, '')}): it may be truncated or damaged`);
}

/**
 * A PDF's text layer, page by page, as Markdown. Headings come from the outline where it has
 * one (an entry's title found on its page becomes a heading of its depth; one not found there
 * starts the page), else from the font sizes: a short line set larger than the body text is a
 * heading, levels by size. A PDF without any text (a scan) is refused: OCR is not done.
 */
export async function pdfToMarkdown(bytes: Uint8Array): Promise<PdfText> {
  let pdf;
  try {
    // A copy: pdf.js takes over (detaches) the buffer it is given.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, useSystemFonts: false, disableFontFace: true, verbosity: 0, stopAtErrors: false });
  } catch (error) {
    throw refusal(error);
  }
  try {
    const pages: Line[][] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      pages.push(linesOf(content.items.flatMap((item) => ('str' in item ? [item as TextItem] : []))));
      page.cleanup();
    }
    if (pages.every((lines) => lines.length === 0)) {
      throw new FileConversionError('no-text', 'The PDF has no text layer (a scanned document?): OCR is not supported; send a PDF with selectable text');
    }
    let outline = new Map<number, Array<{ title: string; depth: number }>>();
    try {
      outline = await outlineByPage(pdf);
    } catch {
      // A broken outline leaves headings to the font sizes.
    }
    const body = bodySize(pages);
    const largerSizes = [...new Set(pages.flat().filter((l) => l.size >= body * HEADING_SIZE_RATIO && l.text.length <= MAX_HEADING_CHARS).map((l) => Math.round(l.size)))].sort((a, b) => b - a);
    const levelOfSize = (size: number): number | undefined => {
      const at = largerSizes.indexOf(Math.round(size));
      return at < 0 ? undefined : Math.min(at + 1, 6);
    };
    const parts: string[] = [];
    pages.forEach((lines, i) => {
      const n = i + 1;
      parts.push(pageMarker(n), '');
      const entries = outline.get(n) ?? [];
      const found = new Set<number>();
      const out: string[] = [];
      for (const line of lines) {
        const entry = outline.size > 0 ? entries.findIndex((e, at) => !found.has(at) && normalize(e.title) === normalize(line.text)) : -1;
        const level = outline.size > 0 ? (entry >= 0 ? entries[entry]!.depth : undefined) : levelOfSize(line.size);
        if (entry >= 0) found.add(entry);
        if (level !== undefined && line.text.length <= MAX_HEADING_CHARS) out.push('', `${'#'.repeat(level)} ${escapeLine(line.text).replace(/^\\/, '')}`, '');
        else out.push(escapeLine(line.text));
      }
      const missing = entries.filter((_, at) => !found.has(at)).map((e) => `${'#'.repeat(e.depth)} ${escapeLine(e.title).replace(/^\\/, '')}\n`);
      parts.push([...missing, ...out].join('\n').replace(/\n{3,}/g, '\n\n').trim(), '');
    });
    let title: string | null = null;
    try {
      const meta = await pdf.getMetadata();
      const raw = (meta.info as { Title?: unknown } | undefined)?.Title;
      if (typeof raw === 'string' && raw.trim() !== '') title = raw.replace(/\s+/g, ' ').trim();
    } catch {
      // No metadata: the caller names the document.
    }
    if (title === null) {
      // Without a metadata title, the first page's largest heading-sized line names the document
      // (a cover title set above the first outline entry, which would otherwise name it).
      let cover: Line | undefined;
      for (const line of pages[0] ?? []) {
        if (line.size >= body * HEADING_SIZE_RATIO && line.text.length <= MAX_HEADING_CHARS && (!cover || line.size > cover.size)) cover = line;
      }
      if (cover) title = cover.text;
    }
    return { markdown: parts.join('\n').trim() + '\n', title, pages: pdf.numPages };
  } catch (error) {
    if (error instanceof FileConversionError) throw error;
    throw refusal(error);
  } finally {
    await pdf.destroy();
  }
}
