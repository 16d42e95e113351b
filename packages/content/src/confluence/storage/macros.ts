import { attribute, childElement, textContent, type StorageElement } from './parse.ts';

/**
 * Storage-format macros (`ac:structured-macro`, and the older `ac:macro`): their names,
 * parameters and bodies, and how each kind is written in Markdown.
 */

export function isMacro(element: StorageElement): boolean {
  return element.name === 'ac:structured-macro' || element.name === 'ac:macro';
}

export function macroName(macro: StorageElement): string {
  return (attribute(macro, 'ac:name') ?? '').trim().toLowerCase();
}

/** A parameter's text (`<ac:parameter ac:name="title">`), trimmed, or undefined. */
export function macroParameter(macro: StorageElement, name: string): string | undefined {
  for (const child of macro.children) {
    if (typeof child === 'string' || child.name !== 'ac:parameter') continue;
    if ((attribute(child, 'ac:name') ?? '').trim().toLowerCase() === name.toLowerCase()) return textContent(child).trim();
  }
  return undefined;
}

export function richTextBody(macro: StorageElement): StorageElement | undefined {
  return childElement(macro, 'ac:rich-text-body');
}

/** The plain-text body (a CDATA section, kept verbatim), or undefined. */
export function plainTextBody(macro: StorageElement): string | undefined {
  const body = childElement(macro, 'ac:plain-text-body');
  return body ? textContent(body) : undefined;
}

/** How a macro is written. */
export type MacroKind =
  /** A fenced code block (code, noformat). */
  | 'code'
  /** A block quote with its title in bold (info, note, warning, tip, panel). */
  | 'panel'
  /** Its title in bold, then its body (expand). */
  | 'expand'
  /** A formula: a code span inline, a fenced block otherwise. */
  | 'math'
  /** Text from a parameter (status: its title; jira: the issue key). */
  | 'label'
  /** Nothing (navigation and anchors: toc, children, anchor). */
  | 'dropped'
  /** Anything else: its bodies, so no text is lost. */
  | 'other';

const KINDS: ReadonlyMap<string, MacroKind> = new Map([
  ['code', 'code'],
  ['noformat', 'code'],
  ['info', 'panel'],
  ['note', 'panel'],
  ['warning', 'panel'],
  ['tip', 'panel'],
  ['panel', 'panel'],
  ['success', 'panel'],
  ['error', 'panel'],
  ['expand', 'expand'],
  ['status', 'label'],
  ['jira', 'label'],
  ['toc', 'dropped'],
  ['anchor', 'dropped'],
  ['children', 'dropped'],
  ['pagetree', 'dropped'],
  ['pagetreesearch', 'dropped'],
  ['livesearch', 'dropped'],
  ['recently-updated', 'dropped'],
]);

export function macroKind(name: string): MacroKind {
  const kind = KINDS.get(name);
  if (kind) return kind;
  if (/math|latex/.test(name)) return 'math';
  return 'other';
}

/** The parameter holding a label macro's text. */
export function labelParameter(name: string): string {
  return name === 'jira' ? 'key' : 'title';
}

/**
 * Whether a macro is block content. Labels, dropped macros, inline formulas and unknown macros
 * without a body sit inside a paragraph without breaking it.
 */
export function isBlockMacro(macro: StorageElement): boolean {
  const name = macroName(macro);
  switch (macroKind(name)) {
    case 'code':
    case 'panel':
    case 'expand':
      return true;
    case 'math':
      return !name.includes('inline');
    case 'label':
    case 'dropped':
      return false;
    default:
      return childElement(macro, 'ac:rich-text-body') !== undefined || childElement(macro, 'ac:plain-text-body') !== undefined;
  }
}

/** Code block languages that mean no highlighting. */
const NO_LANGUAGE = new Set(['none', 'nohighlight', 'no-highlight', 'plain', 'plaintext', 'text']);

/** An info string for a fence: lower-cased, no spaces or backticks; '' for none. */
export function fenceLanguage(raw: string | undefined): string {
  const language = (raw ?? '').trim().toLowerCase().replace(/[^\w#+.-]/g, '');
  return NO_LANGUAGE.has(language) ? '' : language;
}
