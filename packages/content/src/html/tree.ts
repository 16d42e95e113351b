import type { Element, ElementContent, Parents, Text } from 'hast';
import { BLOCK_ELEMENTS } from './elements.ts';

/**
 * Iterative helpers over hast trees. Nothing here recurses, so they are safe on trees of any
 * depth (the unified utilities recurse once per level), and they allocate little per node
 * (pages of ten megabytes have a million nodes).
 */

/**
 * Called for each element in document order, with its parent and the path from the root (the
 * root first, the parent last; live: copy it to keep it). May answer 'skip' (do not descend)
 * or 'remove' (drop the element from its parent, and do not descend). It may replace the
 * element's own children.
 */
export type Visit = (element: Element, parent: Parents, ancestors: readonly Parents[]) => 'skip' | 'remove' | void;

export function walkElements(root: Parents, visit: Visit): void {
  const parents: Parents[] = [root];
  const next: number[] = [0];
  const hasRemovals: boolean[] = [false];
  const removed = new Set<ElementContent>();
  while (parents.length > 0) {
    const top = parents.length - 1;
    const parent = parents[top] as Parents;
    const index = next[top] as number;
    const child = parent.children[index];
    if (child === undefined) {
      if (hasRemovals[top]) parent.children = parent.children.filter((node) => !removed.has(node as ElementContent)) as never;
      parents.pop();
      next.pop();
      hasRemovals.pop();
      continue;
    }
    next[top] = index + 1;
    if (child.type !== 'element') continue;
    const verdict = visit(child, parent, parents);
    if (verdict === 'remove') {
      removed.add(child);
      hasRemovals[top] = true;
    } else if (verdict !== 'skip' && child.children.length > 0) {
      parents.push(child);
      next.push(0);
      hasRemovals.push(false);
    }
  }
}

/** Whether the UTF-16 code is whitespace for text-length purposes (ASCII space/controls, NBSP). */
const isBlankCode = (code: number): boolean => code <= 32 || code === 160;

/** Number of non-whitespace characters of text under `root`. */
export function textLength(root: Parents): number {
  let length = 0;
  const stack: Parents[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    for (const child of node.children) {
      if (child.type === 'text') {
        const { value } = child;
        for (let index = 0; index < value.length; index++) {
          if (!isBlankCode(value.charCodeAt(index))) length++;
        }
      } else if (child.type === 'element') {
        stack.push(child);
      }
    }
  }
  return length;
}

/** The text under `root`, whitespace collapsed. */
export function collapsedText(root: Parents): string {
  const parts: string[] = [];
  const stack: ElementContent[] = [...root.children].reverse() as ElementContent[];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'text') parts.push(node.value);
    else if (node.type === 'element') {
      for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index] as ElementContent);
    }
  }
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** Elements that start a new line of text (used when flattening). */
const startsLine = (tagName: string): boolean => tagName === 'br' || BLOCK_ELEMENTS.has(tagName);

/** Elements that may directly hold paragraphs (others become a div when flattened). */
const KEEPS_PARAGRAPHS = new Set([
  'article',
  'aside',
  'blockquote',
  'dd',
  'details',
  'div',
  'figure',
  'footer',
  'header',
  'li',
  'main',
  'nav',
  'section',
  'td',
  'th',
]);

/**
 * Plain paragraphs holding the text of `element`'s descendants, one per block-level element run.
 */
function flattenToParagraphs(element: Element): Element[] {
  const paragraphs: Element[] = [];
  let current: string[] = [];
  const flush = (): void => {
    const value = current.join('').replace(/\s+/g, ' ').trim();
    current = [];
    if (value !== '') {
      const text: Text = { type: 'text', value };
      paragraphs.push({ type: 'element', tagName: 'p', properties: {}, children: [text] });
    }
  };
  // Entries are nodes, or a marker closing a block element.
  const stack: (ElementContent | 'end-block')[] = [...element.children].reverse();
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node === 'end-block') {
      flush();
      continue;
    }
    if (node.type === 'text') {
      current.push(node.value);
      continue;
    }
    if (node.type !== 'element') continue;
    if (startsLine(node.tagName)) {
      flush();
      stack.push('end-block');
    } else {
      current.push(' ');
    }
    for (let index = node.children.length - 1; index >= 0; index--) stack.push(node.children[index] as ElementContent);
  }
  flush();
  return paragraphs;
}

/**
 * Bounds the depth of the tree under `root`: an element at `maxDepth` keeps its text but loses
 * the structure below it (its descendants become plain paragraphs). Returns how many elements
 * were flattened.
 */
export function limitDepth(root: Parents, maxDepth: number): number {
  let flattened = 0;
  walkElements(root, (element, _parent, ancestors) => {
    // ancestors holds the root and every element above this one.
    if (ancestors.length < maxDepth) return undefined;
    element.children = flattenToParagraphs(element);
    if (!KEEPS_PARAGRAPHS.has(element.tagName)) {
      element.tagName = 'div';
      element.properties = {};
    }
    flattened++;
    return 'skip';
  });
  return flattened;
}

/**
 * Keeps about the first `maxNodes` nodes under `root` (elements and text, in document order) and
 * drops the rest. Returns whether anything was dropped.
 */
export function truncateTree(root: Parents, maxNodes: number): boolean {
  let count = 0;
  let truncated = false;
  walkElements(root, (element, _parent, ancestors) => {
    if (truncated) return 'skip';
    count += 1;
    for (const child of element.children) if (child.type !== 'element') count++;
    if (count <= maxNodes) return undefined;
    // Drop this element, its later siblings, and the later siblings of each ancestor.
    truncated = true;
    let child: Parents = element;
    for (let level = ancestors.length - 1; level >= 0; level--) {
      const above = ancestors[level] as Parents;
      const position = (above.children as Parents[]).indexOf(child);
      above.children.length = child === element ? position : position + 1;
      child = above;
    }
    return 'skip';
  });
  return truncated;
}

export function classTokens(element: Element): string[] {
  const value: unknown = element.properties.className;
  if (Array.isArray(value)) return value.map((token) => String(token));
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  return [];
}

export function stringProperty(element: Element, name: string): string | undefined {
  const value = element.properties[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return value.join(' ');
  return undefined;
}
