import type { MdNode } from './markdown.ts';

/**
 * Building DOM nodes without HTML strings: every text goes in as a text node, so nothing from an
 * answer or a document is ever parsed as markup.
 */

type Child = Node | string | false | null | undefined;
type Props = Record<string, string | number | boolean | undefined | ((event: never) => void)>;

/**
 * An element: `on…` props become listeners, `true` sets an empty attribute, `false`/undefined sets
 * none; children are nodes or text.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== undefined) element.setAttribute(name, String(value));
  }
  element.append(...children.filter((child): child is Node | string => child !== false && child !== null && child !== undefined));
  return element;
}

/** An inline SVG icon from path data (fixed shapes of this script, never from answers). */
export function icon(paths: string, size = 18): SVGSVGElement {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const d of paths.split('|')) {
    const path = document.createElementNS(ns, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

export const ICONS = {
  spark: 'M12 2l2.4 6.1L20.5 10l-6.1 2.4L12 18.5l-2.4-6.1L3.5 10l6.1-1.9z|M19 15l.9 2.1L22 18l-2.1.9L19 21l-.9-2.1L16 18l2.1-.9z',
  close: 'M6 6l12 12|M18 6L6 18',
  send: 'M4 12l16-8-6 16-2-7z',
  stop: 'M7 7h10v10H7z',
  up: 'M7 11v9H4v-9zM7 11l4-8a2 2 0 012 2v4h6a2 2 0 012 2.3l-1.3 7A2 2 0 0117.7 20H7',
  down: 'M7 13V4H4v9zM7 13l4 8a2 2 0 002-2v-4h6a2 2 0 002-2.3l-1.3-7A2 2 0 0017.7 4H7',
  history: 'M3 12a9 9 0 103-6.7L3 8|M3 3v5h5|M12 7v5l3 3',
  plus: 'M12 5v14|M5 12h14',
  back: 'M15 18l-6-6 6-6',
  copy: 'M9 9h11v11H9z|M5 15H4V4h11v1',
  link: 'M14 4h6v6|M20 4l-9 9|M18 14v6H4V6h6',
};

/** Renders parsed Markdown; `decorate` may wrap a code block (the copy button). Links open in a new tab, without the opener. */
export function renderMarkdown(nodes: readonly MdNode[], decorate: (pre: HTMLPreElement) => Node): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const node of nodes) fragment.append(renderNode(node, decorate));
  return fragment;
}

function renderNode(node: MdNode, decorate: (pre: HTMLPreElement) => Node): Node {
  if (typeof node === 'string') return document.createTextNode(node);
  const element = document.createElement(node.tag);
  const { href, start, align, lang } = node.attrs ?? {};
  if (node.tag === 'a' && href !== undefined) {
    element.setAttribute('href', href);
    element.setAttribute('target', '_blank');
    element.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.tag === 'ol' && start !== undefined) element.setAttribute('start', start);
  if (align !== undefined) element.setAttribute('class', `align-${align}`);
  if (node.tag === 'pre' && lang !== undefined) element.dataset.lang = lang;
  for (const child of node.children) element.append(renderNode(child, decorate));
  if (node.tag === 'table') {
    // Wide tables scroll inside the answer instead of widening the panel.
    const wrapper = document.createElement('div');
    wrapper.className = 'table';
    wrapper.append(element);
    return wrapper;
  }
  return node.tag === 'pre' ? decorate(element as HTMLPreElement) : element;
}
