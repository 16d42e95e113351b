import type { Nodes } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/** Characters that can start inline markup; headings without them are already plain text. */
const MARKUP = /[*_`[\]\\<&~]/;
/** Longest heading source resolved with remark (longer ones are cut; pathological input). */
const MAX_HEADING_CHARS = 300;
/** Total size of the small heading-only document parsed per input document. */
const MAX_HEADING_DOC_CHARS = 12 * 1024;
const MAX_DEFINITIONS = 1000;

/** Full inline parsing, but only ever fed short single-line headings. */
const inlineProcessor = unified().use(remarkParse).use(remarkGfm).freeze();

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Plain text of headings given their inline Markdown source: emphasis, code, links, images (alt
 * text), HTML and escapes are resolved. Headings with markup are resolved together in one small
 * remark parse (headings are capped in length so this stays cheap); reference-style links are
 * resolved with the document's definition labels. Past a size budget, a regex approximation is
 * used instead.
 */
export function headingPlainTexts(raws: readonly string[], definitionLabels: readonly string[]): string[] {
  const result = raws.map((raw) => collapseWhitespace(raw));
  const pending: number[] = [];
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; index < result.length; index++) {
    const text = result[index] ?? '';
    if (!MARKUP.test(text)) continue;
    const line = `# ${text.slice(0, MAX_HEADING_CHARS)}`;
    if (size + line.length > MAX_HEADING_DOC_CHARS) {
      result[index] = stripInlineMarkup(text);
      continue;
    }
    size += line.length + 1;
    pending.push(index);
    lines.push(line);
  }
  if (pending.length === 0) return result;

  const needsDefinitions = lines.some((line) => line.includes('['));
  const definitions = needsDefinitions
    ? [...new Set(definitionLabels.map((label) => collapseWhitespace(label)))]
        .filter((label) => label !== '' && label.length <= MAX_HEADING_CHARS)
        .slice(0, MAX_DEFINITIONS)
        .map((label) => `[${label}]: #`)
    : [];
  const tree = inlineProcessor.parse(`${lines.join('\n')}\n\n${definitions.join('\n')}\n`);
  for (let k = 0; k < pending.length; k++) {
    const index = pending[k] ?? 0;
    const node = tree.children[k];
    const text = result[index] ?? '';
    result[index] = node?.type === 'heading' ? collapseWhitespace(plainText(node)) : stripInlineMarkup(text);
  }
  return result;
}

/** Text content of an inline tree (image alt text included, HTML tags dropped). */
function plainText(root: Nodes): string {
  let out = '';
  const stack: Nodes[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    switch (node.type) {
      case 'text':
      case 'inlineCode':
        out += node.value;
        break;
      case 'image':
      case 'imageReference':
        out += node.alt ?? '';
        break;
      case 'break':
        out += ' ';
        break;
      case 'html':
      case 'footnoteReference':
        break;
      default:
        if ('children' in node) {
          for (let i = node.children.length - 1; i >= 0; i--) {
            const child = node.children[i];
            if (child !== undefined) stack.push(child);
          }
        }
    }
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Cheap approximation of {@link plainText} for inputs past the remark budget. */
export function stripInlineMarkup(text: string): string {
  const stripped = text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])?/g, '$1')
    .replace(/<((?:https?|mailto):[^>\s]*)>/gi, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, '')
    .replace(/`+/g, '')
    .replace(/\*+|~~/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/&(amp|lt|gt|quot|apos|nbsp);/g, (_, name: string) => ENTITIES[name] ?? '')
    .replace(/&#(x[0-9a-f]+|\d+);/gi, (match, code: string) => {
      const value = code.startsWith('x') || code.startsWith('X') ? Number.parseInt(code.slice(1), 16) : Number(code);
      return Number.isInteger(value) && value > 0 && value <= 0x10ffff ? String.fromCodePoint(value) : match;
    });
  return collapseWhitespace(stripped);
}
