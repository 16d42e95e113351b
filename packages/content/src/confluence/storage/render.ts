import { BLOCK_ELEMENTS } from '../../html/elements.ts';
import { autolink, codeSpan, escapeHeadingEnd, escapeLineStart, escapeText, linkDestination, longestRun } from './escape.ts';
import { InlineBuilder } from './inline.ts';
import {
  fenceLanguage,
  isBlockMacro,
  isMacro,
  labelParameter,
  macroKind,
  macroName,
  macroParameter,
  plainTextBody,
  richTextBody,
} from './macros.ts';
import { attribute, childElement, textContent, type StorageElement, type StorageNode } from './parse.ts';
import { emoticonText, imageCaption, imageText, linkTarget, type UrlResolver } from './resources.ts';
import { tableGrid, tableParts } from './table.ts';
import { BlockWriter } from './writer.ts';

/**
 * Writes a parsed storage tree as Markdown. Block content goes through a {@link BlockWriter}
 * (containers, blank lines), runs of inline content through an {@link InlineBuilder}. The tree
 * is at most MAX_TREE_DEPTH deep (see parse.ts), so recursing over it is safe.
 */

/** Lists and block quotes nested deeper than this are written without their markers. */
const MAX_CONTAINER_DEPTH = 16;

/** Storage elements that are blocks wherever they appear in block content (besides HTML's). */
const STORAGE_BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'ac:adf-content',
  'ac:adf-extension',
  'ac:adf-node',
  'ac:layout',
  'ac:layout-cell',
  'ac:layout-section',
  'ac:task',
  'ac:task-list',
]);

const isBlockName = (name: string): boolean => BLOCK_ELEMENTS.has(name) || STORAGE_BLOCK_ELEMENTS.has(name);

/** Elements that stay inline even around block content (which is then flattened into them). */
const INLINE_ELEMENTS = new Set([
  'a',
  'ac:emoticon',
  'ac:image',
  'ac:link',
  'b',
  'br',
  'code',
  'del',
  'em',
  'i',
  'img',
  'kbd',
  's',
  'samp',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
]);

/** Elements whose content is never page text. */
const DROPPED_ELEMENTS = new Set([
  'ac:adf-attribute',
  'ac:adf-fallback',
  'ac:parameter',
  'ac:placeholder',
  'ac:task-id',
  'ac:task-status',
  'ac:task-uuid',
  'audio',
  'button',
  'canvas',
  'colgroup',
  'head',
  'iframe',
  'input',
  'noscript',
  'object',
  'script',
  'select',
  'style',
  'svg',
  'template',
  'textarea',
  'title',
  'video',
]);

const HEADING_LEVELS: Readonly<Record<string, number>> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

const isBlank = (text: string): boolean => /^[ \t\n\r\f\u00a0]*$/.test(text);

const collapse = (text: string): string => text.replace(/[ \t\n\r\f\u00a0]+/g, ' ');

/** State of one run of inline content. */
interface Inline {
  readonly out: InlineBuilder;
  /** In a heading, bold adds nothing and is left out. */
  readonly heading: boolean;
  /** Open emphasis of each kind: nested emphasis of the same kind is not marked again. */
  strong: number;
  emphasis: number;
  strike: number;
}

type EmphasisKind = 'strong' | 'emphasis' | 'strike';

function isDropped(name: string): boolean {
  return DROPPED_ELEMENTS.has(name) || name.startsWith('ri:');
}

/** Code text of a `<pre>`: its text with `<br>` as line breaks. */
function preformattedText(pre: StorageElement): string {
  let text = '';
  const stack: StorageNode[] = [pre];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') text += node;
    else if (node.name === 'br') text += '\n';
    else for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index] as StorageNode);
  }
  return text;
}

/** Text of an element without the text of dropped elements (macro parameters, placeholders). */
function visibleText(element: StorageElement): string {
  let text = '';
  const stack: StorageNode[] = [element];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') text += node;
    else if (!isDropped(node.name)) for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index] as StorageNode);
  }
  return text;
}

/** Formatting that may sit inside `<sub>` / `<sup>` written as HTML (its markup is not kept). */
const SCRIPT_CONTENT = new Set(['b', 'em', 'font', 'i', 'span', 'strong', 'u']);

/** Whether everything under `element` is text or simple formatting. */
function isSimpleText(element: StorageElement): boolean {
  const stack: StorageElement[] = [element];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    for (const child of node.children) {
      if (typeof child === 'string') continue;
      if (!SCRIPT_CONTENT.has(child.name)) return false;
      stack.push(child);
    }
  }
  return true;
}

/** Code without blank lines at its start and whitespace at its end. */
function trimCode(code: string): string {
  return code.replace(/^(?:[ \t]*\n)+/, '').trimEnd();
}

/** Whether an element shows anything: text, or an image or emoticon. */
function hasVisibleContent(element: StorageElement): boolean {
  const stack: StorageNode[] = [element];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (typeof node === 'string') {
      if (!isBlank(node)) return true;
    } else if (node.name === 'ac:image' || node.name === 'img' || node.name === 'ac:emoticon') {
      return true;
    } else if (!isDropped(node.name)) {
      for (const child of node.children) stack.push(child);
    }
  }
  return false;
}

export class StorageRenderer {
  constructor(private readonly resolve: UrlResolver) {}

  /** The Markdown document for a parsed tree. */
  render(root: StorageElement): string {
    const writer = new BlockWriter(false);
    this.flow(root.children, writer);
    return writer.toString();
  }

  // ---------------------------------------------------------------- block content

  /**
   * Block content: block elements, with runs of inline content between them as paragraphs.
   * Outside a `<p>`, an image with no text beside it stands on its own (Confluence shows it as
   * a block).
   */
  private flow(children: readonly StorageNode[], writer: BlockWriter, inParagraph = false): void {
    let inline: Inline | null = null;
    for (let index = 0; index < children.length; index++) {
      const child = children[index] as StorageNode;
      if (typeof child === 'string') {
        if (inline === null && isBlank(child)) continue;
        inline ??= this.newInline(false);
        inline.out.text(child);
      } else if (this.isBlock(child) || (!inParagraph && inline === null && this.isStandaloneImage(children, index))) {
        if (inline) this.paragraph(inline, writer);
        inline = null;
        if (child.name === 'ac:image') this.flowInline(child, writer);
        else this.block(child, writer);
      } else if (!isDropped(child.name)) {
        inline ??= this.newInline(false);
        this.inlineElement(child, inline);
      }
    }
    if (inline) this.paragraph(inline, writer);
  }

  /** Whether children[index] is an image followed by no text (a block, another image or nothing). */
  private isStandaloneImage(children: readonly StorageNode[], index: number): boolean {
    if ((children[index] as StorageElement).name !== 'ac:image') return false;
    for (let next = index + 1; next < children.length; next++) {
      const sibling = children[next] as StorageNode;
      if (typeof sibling === 'string') {
        if (!isBlank(sibling)) return false;
      } else {
        return sibling.name === 'ac:image' || this.isBlock(sibling);
      }
    }
    return true;
  }

  private isBlock(element: StorageElement): boolean {
    const { name } = element;
    if (isBlockName(name)) return true;
    if (isMacro(element)) return isBlockMacro(element);
    if (INLINE_ELEMENTS.has(name) || isDropped(name)) return false;
    // Wrappers (span, comment markers, unknown elements) are blocks when they hold blocks.
    for (const child of element.children) {
      if (typeof child !== 'string' && (isBlockName(child.name) || (isMacro(child) && isBlockMacro(child)))) return true;
    }
    return false;
  }

  private block(element: StorageElement, writer: BlockWriter): void {
    const { name } = element;
    const level = HEADING_LEVELS[name];
    if (level !== undefined) return this.heading(element, level, writer);
    switch (name) {
      case 'ul':
        return this.list(element, false, writer);
      case 'ol':
        return this.list(element, true, writer);
      case 'ac:task-list':
        return this.taskList(element, writer);
      case 'table':
        return this.table(element, writer);
      case 'blockquote':
        return this.quote(element.children, undefined, writer);
      case 'pre':
        return this.codeBlock(preformattedText(element), '', writer);
      case 'hr':
        if (!writer.flat) {
          writer.begin('other');
          writer.line('***');
        }
        return;
      case 'dt':
      case 'summary':
        return this.boldParagraph(element, writer);
      case 'ac:structured-macro':
      case 'ac:macro':
        return this.macro(element, writer);
      case 'ac:adf-extension':
        return this.adfExtension(element, writer);
      case 'ac:adf-node':
        this.adfNode(element, writer);
        return;
      case 'ac:task':
        return this.taskContent(element, writer);
      default:
        return this.flow(element.children, writer, name === 'p');
    }
  }

  private newInline(heading: boolean): Inline {
    return { out: new InlineBuilder(), heading, strong: 0, emphasis: 0, strike: 0 };
  }

  /** Lines of inline content, trimmed, without empty ones. */
  private inlineLines(inline: Inline): string[] {
    const text = inline.out.finish();
    if (!text.includes('\n')) {
      const trimmed = text.trim();
      return trimmed === '' ? [] : [trimmed];
    }
    const lines: string[] = [];
    for (const line of text.split('\n')) {
      const trimmed = line.trim();
      if (trimmed !== '') lines.push(trimmed);
    }
    return lines;
  }

  /** Writes a run of inline content as a paragraph, lines joined by hard breaks. */
  private paragraph(inline: Inline, writer: BlockWriter): void {
    const lines = this.inlineLines(inline);
    if (lines.length === 0) return;
    writer.begin('paragraph');
    const last = lines.length - 1;
    for (let index = 0; index <= last; index++) {
      const line = lines[index] as string;
      if (writer.flat) writer.line(line);
      else writer.line(index < last ? `${escapeLineStart(line)}\\` : escapeLineStart(line));
    }
  }

  private boldParagraph(element: StorageElement, writer: BlockWriter): void {
    const inline = this.newInline(false);
    this.emphasis(element, inline, 'strong');
    this.paragraph(inline, writer);
  }

  /** A bold line of plain text (a panel or expand title). */
  private titleLine(title: string | undefined, writer: BlockWriter): void {
    const text = collapse(title ?? '').trim();
    if (text === '') return;
    writer.begin('paragraph');
    writer.line(`**${escapeText(text)}**`);
  }

  private heading(element: StorageElement, level: number, writer: BlockWriter): void {
    const inline = this.newInline(true);
    this.inlineChildren(element, inline);
    const text = this.inlineLines(inline).join(' ');
    if (text === '') return;
    if (writer.flat) {
      writer.begin('paragraph');
      writer.line(`**${text}**`);
      return;
    }
    writer.begin('heading');
    writer.line(`${'#'.repeat(level)} ${escapeHeadingEnd(text)}`);
  }

  private list(element: StorageElement, ordered: boolean, writer: BlockWriter): void {
    if (writer.depth >= MAX_CONTAINER_DEPTH) return this.flow(element.children, writer);
    const start = ordered ? Number.parseInt(attribute(element, 'start') ?? '1', 10) : 1;
    let number = Number.isFinite(start) && start >= 0 ? Math.min(start, 999_999_999) : 1;
    const marker = this.beginList(ordered, number === 1, writer);
    let itemOpen = false;
    for (const child of element.children) {
      const item = typeof child === 'string' ? null : child.name === 'li' ? child : null;
      if (item === null && (typeof child === 'string' ? isBlank(child) : isDropped(child.name))) continue;
      // Content between items (often a nested list) belongs to the item before it.
      if (item !== null || !itemOpen) {
        if (itemOpen) writer.pop();
        const text = ordered ? `${number}${marker} ` : `${marker} `;
        if (number < 999_999_999) number++;
        writer.push(text, ' '.repeat(text.length), true);
        itemOpen = true;
      }
      this.flow(item === null ? [child] : item.children, writer);
    }
    if (itemOpen) writer.pop();
  }

  /**
   * Starts a list block and returns its marker (`-` or `*`; `.` or `)`): a list right after a
   * list of the same kind takes the other marker, or Markdown would merge the two.
   */
  private beginList(ordered: boolean, interruptsParagraph: boolean, writer: BlockWriter): string {
    // A flat writer's lines are joined on one line: nothing to merge.
    const previous = writer.flat ? 'none' : writer.previous;
    const tight = writer.inItem && previous === 'paragraph' && interruptsParagraph;
    if (ordered) {
      const alternate = previous === 'ordered';
      writer.begin(alternate ? 'ordered-alt' : 'ordered', tight);
      return alternate ? ')' : '.';
    }
    const alternate = previous === 'list';
    writer.begin(alternate ? 'list-alt' : 'list', tight);
    return alternate ? '*' : '-';
  }

  private taskList(element: StorageElement, writer: BlockWriter): void {
    if (writer.depth >= MAX_CONTAINER_DEPTH) return this.flow(element.children, writer);
    const bullet = this.beginList(false, true, writer);
    let itemOpen = false;
    for (const child of element.children) {
      if (typeof child !== 'string' && child.name === 'ac:task') {
        if (itemOpen) writer.pop();
        const status = childElement(child, 'ac:task-status');
        const done = status !== undefined && textContent(status).trim().toLowerCase() === 'complete';
        writer.push(`${bullet} [${done ? 'x' : ' '}] `, '  ', true);
        itemOpen = true;
        this.taskContent(child, writer);
      } else if (typeof child === 'string' ? !isBlank(child) : !isDropped(child.name)) {
        // A nested task list (or stray content) belongs to the task before it.
        this.flow([child], writer);
      }
    }
    if (itemOpen) writer.pop();
  }

  /** A task's body, then nested task lists and anything else misplaced in the task. */
  private taskContent(task: StorageElement, writer: BlockWriter): void {
    this.flow(childElement(task, 'ac:task-body')?.children ?? [], writer);
    this.flow(
      task.children.filter((part) => typeof part === 'string' || part.name !== 'ac:task-body'),
      writer,
    );
  }

  /** A block quote, with an optional bold title line. Flat writers leave out the `>` markers. */
  private quote(children: readonly StorageNode[], title: string | undefined, writer: BlockWriter): void {
    const contained = !writer.flat && writer.depth < MAX_CONTAINER_DEPTH;
    if (contained) {
      writer.begin('other');
      writer.push('> ', '> ', false);
    }
    this.titleLine(title, writer);
    this.flow(children, writer);
    if (contained) writer.pop();
  }

  /** A fenced code block whose fence is longer than any backtick run in the code. */
  private codeBlock(rawCode: string, language: string, writer: BlockWriter): void {
    const code = trimCode(rawCode);
    if (code === '') return;
    const lines = code.split('\n');
    writer.begin('other');
    if (writer.flat) {
      for (const line of lines) {
        const span = codeSpan(collapse(line).trim());
        if (span !== '') writer.line(span);
      }
      return;
    }
    const fence = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
    writer.line(fence + language);
    for (const line of lines) writer.line(line);
    writer.line(fence);
  }

  private table(element: StorageElement, writer: BlockWriter): void {
    const { rows, captions, strays } = tableParts(element);
    for (const caption of captions) this.flow(caption.children, writer);
    const only = rows.length === 1 && rows[0]?.length === 1 ? rows[0][0] : undefined;
    // A single cell is a box around content, not a table.
    if (only) this.flow(only.children, writer);
    else this.tableRows(rows, writer);
    // Malformed tables may hold text outside their cells.
    if (strays.length > 0) this.flow(strays, writer);
  }

  private tableRows(rows: readonly StorageElement[][], writer: BlockWriter): void {
    // Rows left empty (template placeholders) are dropped; the header row stays.
    const grid = tableGrid(rows, (cell) => this.cellText(cell)).filter((row, index) => index === 0 || row.some((cell) => cell !== ''));
    if (!grid.some((row) => row.some((cell) => cell !== ''))) return;
    writer.begin(writer.flat ? 'paragraph' : 'other');
    if (writer.flat) {
      for (const row of grid) {
        const line = row.filter((cell) => cell !== '').join(' | ');
        if (line !== '') writer.line(line);
      }
      return;
    }
    for (let index = 0; index < grid.length; index++) {
      const cells = grid[index] as string[];
      let line = '|';
      for (const cell of cells) line += ` ${cell.includes('|') ? cell.replace(/\|/g, '\\|') : cell} |`;
      writer.line(line);
      if (index === 0) writer.line(`|${' --- |'.repeat(cells.length)}`);
    }
  }

  /** A table cell's content on one line: its blocks flattened, joined by `<br>`. */
  private cellText(cell: StorageElement): string {
    const flat = new BlockWriter(true);
    this.flow(cell.children, flat);
    return flat.contentLines().map((line) => line.trim()).join('<br>');
  }

  // ---------------------------------------------------------------- macros

  private macro(macro: StorageElement, writer: BlockWriter): void {
    const name = macroName(macro);
    switch (macroKind(name)) {
      case 'code':
        this.titleLine(macroParameter(macro, 'title'), writer);
        return this.codeBlock(plainTextBody(macro) ?? '', name === 'code' ? fenceLanguage(macroParameter(macro, 'language')) : '', writer);
      case 'panel':
        return this.quote(richTextBody(macro)?.children ?? [], macroParameter(macro, 'title'), writer);
      case 'expand':
        this.titleLine(macroParameter(macro, 'title'), writer);
        return this.flow(richTextBody(macro)?.children ?? [], writer);
      case 'math':
        return this.codeBlock(this.formula(macro), 'latex', writer);
      case 'label':
      case 'dropped':
        return this.flowInline(macro, writer);
      default: {
        const body = richTextBody(macro);
        if (body) this.flow(body.children, writer);
        const plain = plainTextBody(macro);
        if (plain !== undefined) this.codeBlock(plain, fenceLanguage(macroParameter(macro, 'language')), writer);
      }
    }
  }

  private formula(macro: StorageElement): string {
    return macroParameter(macro, 'body') ?? plainTextBody(macro) ?? visibleText(richTextBody(macro) ?? macro);
  }

  /** An inline macro in inline content. */
  private inlineMacro(macro: StorageElement, inline: Inline): void {
    const name = macroName(macro);
    const kind = macroKind(name);
    if (kind === 'label') {
      inline.out.text(` ${macroParameter(macro, labelParameter(name)) ?? ''} `);
    } else if (kind === 'math' && !isBlockMacro(macro)) {
      inline.out.raw(codeSpan(collapse(this.formula(macro)).trim()));
    } else if (kind !== 'dropped') {
      this.flatten(macro, inline);
    }
  }

  /** Writes an inline element standing in block content as a paragraph of its own. */
  private flowInline(element: StorageElement, writer: BlockWriter): void {
    const inline = this.newInline(false);
    this.inlineElement(element, inline);
    this.paragraph(inline, writer);
  }

  /** Atlassian Document Format extensions: panels and decision lists, else the fallback. */
  private adfExtension(extension: StorageElement, writer: BlockWriter): void {
    const node = childElement(extension, 'ac:adf-node');
    if (node && this.adfNode(node, writer)) return;
    const fallback = childElement(extension, 'ac:adf-fallback');
    if (fallback) this.flow(fallback.children, writer);
  }

  /** Writes an ADF node; false when it has nothing this converter understands. */
  private adfNode(node: StorageElement, writer: BlockWriter): boolean {
    const type = attribute(node, 'type') ?? '';
    const content = childElement(node, 'ac:adf-content');
    if (type === 'panel') {
      this.quote(content?.children ?? [], undefined, writer);
      return true;
    }
    const items = node.children.filter((child): child is StorageElement => typeof child !== 'string' && child.name === 'ac:adf-node');
    if (type.endsWith('-list') && items.length > 0 && writer.depth < MAX_CONTAINER_DEPTH) {
      const marker = this.beginList(false, true, writer);
      for (const item of items) {
        writer.push(`${marker} `, '  ', true);
        this.adfNode(item, writer);
        writer.pop();
      }
      return true;
    }
    if (content) {
      this.flow(content.children, writer);
      return true;
    }
    let understood = false;
    for (const item of items) understood = this.adfNode(item, writer) || understood;
    return understood || type.endsWith('-item');
  }

  // ---------------------------------------------------------------- inline content

  private inlineChildren(element: StorageElement, inline: Inline): void {
    for (const child of element.children) {
      if (typeof child === 'string') inline.out.text(child);
      else this.inlineElement(child, inline);
    }
  }

  private inlineElement(element: StorageElement, inline: Inline): void {
    const { name } = element;
    switch (name) {
      case 'strong':
      case 'b':
        return this.emphasis(element, inline, 'strong');
      case 'em':
      case 'i':
        return this.emphasis(element, inline, 'emphasis');
      case 'del':
      case 's':
      case 'strike':
        return this.emphasis(element, inline, 'strike');
      case 'code':
      case 'tt':
      case 'kbd':
      case 'samp':
        return this.code(visibleText(element), inline);
      case 'sub':
      case 'sup':
        return this.script(element, inline);
      case 'br':
        return inline.out.lineBreak();
      case 'a':
        return this.anchor(element, inline);
      case 'ac:link':
        return this.confluenceLink(element, inline);
      case 'ac:image':
        return this.image(element, inline);
      case 'img':
        return inline.out.text(` ${attribute(element, 'alt') || attribute(element, 'title') || ''} `);
      case 'time':
        return this.time(element, inline);
      case 'ac:emoticon':
        return inline.out.text(emoticonText(element));
      case 'math':
        return this.mathMl(element, inline);
      case 'ac:structured-macro':
      case 'ac:macro':
        return this.inlineMacro(element, inline);
      default:
        if (isDropped(name)) return;
        if (isBlockName(name)) return this.flatten(element, inline);
        return this.inlineChildren(element, inline);
    }
  }

  private emphasis(element: StorageElement, inline: Inline, kind: EmphasisKind): void {
    if (inline[kind] > 0 || (kind === 'strong' && inline.heading)) return this.inlineChildren(element, inline);
    const token = kind === 'strong' ? '**' : kind === 'emphasis' ? '*' : '~~';
    inline[kind]++;
    const marker = inline.out.open(token);
    this.inlineChildren(element, inline);
    inline.out.close(marker, token);
    inline[kind]--;
  }

  /** A code span; surrounding whitespace stays outside it. */
  private code(text: string, inline: Inline): void {
    const collapsed = collapse(text);
    const trimmed = collapsed.trim();
    if (trimmed === '') return inline.out.text(collapsed);
    if (collapsed.startsWith(' ')) inline.out.text(' ');
    inline.out.raw(codeSpan(trimmed));
    if (collapsed.endsWith(' ')) inline.out.text(' ');
  }

  /**
   * Subscript and superscript: a single token (an exponent, a footnote number) keeps its
   * `<sub>` / `<sup>` tags; longer text (Confluence uses them for small print) is plain text.
   */
  private script(element: StorageElement, inline: Inline): void {
    const text = isSimpleText(element) ? collapse(textContent(element)).trim() : '';
    if (text === '' || text.includes(' ') || text.length > 16) return this.inlineChildren(element, inline);
    inline.out.raw(`<${element.name}>${escapeText(text)}</${element.name}>`);
  }

  /** `<a href>`: a Markdown link, an autolink when the text is the URL, plain text when it leads nowhere. */
  private anchor(element: StorageElement, inline: Inline): void {
    const href = attribute(element, 'href') ?? '';
    const url = this.resolve(href);
    if (url === null || inline.out.linkDepth > 0) return this.inlineChildren(element, inline);
    const [only] = element.children;
    if (element.children.length === 1 && typeof only === 'string') {
      const text = only.trim();
      const auto = text === href.trim() || text === url ? autolink(url) : null;
      if (auto) return inline.out.raw(auto);
    }
    const marker = inline.out.open('[');
    this.inlineChildren(element, inline);
    inline.out.close(marker, `](${linkDestination(url)})`);
  }

  /**
   * `ac:link`: the link body (`ac:plain-text-link-body` or `ac:link-body`), else the target's
   * title, file name or URL. Only `ri:url` targets become Markdown links.
   */
  private confluenceLink(link: StorageElement, inline: Inline): void {
    const target = linkTarget(link, this.resolve);
    let plain = childElement(link, 'ac:plain-text-link-body');
    if (plain && isBlank(textContent(plain))) plain = undefined;
    let body = childElement(link, 'ac:link-body');
    if (body && !hasVisibleContent(body)) body = undefined;
    if (target.url === null || inline.out.linkDepth > 0) return this.linkText(target.text, plain, body, inline);
    const auto = plain || body ? null : autolink(target.url);
    if (auto) return inline.out.raw(auto);
    const marker = inline.out.open('[');
    this.linkText(target.text, plain, body, inline);
    inline.out.close(marker, `](${linkDestination(target.url)})`);
  }

  private linkText(fallback: string, plain: StorageElement | undefined, body: StorageElement | undefined, inline: Inline): void {
    if (plain) inline.out.text(textContent(plain));
    else if (body) this.inlineChildren(body, inline);
    else inline.out.text(fallback);
  }

  /** `ac:image`: its alt text, title or file name, and its caption. */
  private image(image: StorageElement, inline: Inline): void {
    const text = imageText(image);
    inline.out.text(` ${text} `);
    const caption = imageCaption(image, text);
    if (caption) inline.out.text(`${caption} `);
  }

  private time(element: StorageElement, inline: Inline): void {
    const datetime = attribute(element, 'datetime')?.trim();
    if (datetime) inline.out.text(datetime);
    else this.inlineChildren(element, inline);
  }

  /** MathML: its TeX annotation as code when there is one, else its text. */
  private mathMl(element: StorageElement, inline: Inline): void {
    const stack: StorageNode[] = [element];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      if (typeof node === 'string') continue;
      if (node.name === 'annotation' && /tex/i.test(attribute(node, 'encoding') ?? '')) {
        return inline.out.raw(codeSpan(collapse(textContent(node)).trim()));
      }
      for (const child of node.children) stack.push(child);
    }
    inline.out.text(textContent(element));
  }

  /**
   * Block content inside inline content (a list in a link, a code macro in a heading): written
   * with a flat writer, its lines joined by hard breaks (spaces in headings).
   */
  private flatten(element: StorageElement, inline: Inline): void {
    const flat = new BlockWriter(true);
    if (isMacro(element)) this.macro(element, flat);
    else this.block(element, flat);
    const lines = flat.contentLines();
    if (lines.length === 0) return;
    for (const line of lines) {
      inline.out.lineBreak();
      inline.out.raw(line.trim());
    }
    inline.out.lineBreak();
  }
}
