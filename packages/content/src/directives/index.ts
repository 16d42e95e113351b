/**
 * Site-generator directives out of a source page, before it is stored: what the reader of the
 * published site sees, not the generator's markup. Hugo shortcodes (shortcodes.ts) are replaced
 * by what they stand for where that is text (an included page, the code of `code-toggle` and
 * `highlight`, the inner content of any other paired shortcode, a `ref` target), and left out
 * otherwise; in MDX pages (mdx.ts), `import`/`export` lines and JSX component tags are left out
 * and their children kept. Pure: included files come through `load`. An include written on a
 * line of its own, outside code, is set between fragment markers (chunking/fragments.ts) that
 * name the included file, so that its text is chunked apart from the page's own and known for a
 * copy of that file wherever it is included.
 */
import { markFragment } from '../chunking/fragments.ts';
import { findFrontMatter } from '../chunking/front-matter.ts';
import { removeMdxSyntax } from './mdx.ts';
import { pairShortcodes, scanShortcodes, type ShortcodeTag } from './shortcodes.ts';

/** Includes followed inside includes; deeper ones are left out. */
export const MAX_INCLUDE_DEPTH = 8;
/** Includes expanded for one document, and characters they may add in all. */
export const MAX_INCLUDES = 200;
export const MAX_INCLUDED_CHARS = 2_000_000;

export interface LoadedInclude {
  /** The target's identity (a path): cycles are found by it. */
  path: string;
  text: string;
}

export interface SiteDirectiveOptions {
  /** The document's own path (the first link of the include chain). */
  path: string;
  /** Whether the page is MDX (`.mdx`): ESM lines and JSX tags are removed. */
  mdx?: boolean;
  /**
   * Finds the target of an `include` shortcode written in the page at `from`; undefined when
   * there is none (the directive is then left out and reported).
   */
  load?: (target: string, from: string) => LoadedInclude | undefined;
  /**
   * The page is itself a fragment that other pages include: its text is marked as the fragment
   * `path`, as its copies in those pages are, so that search takes them all for one passage.
   */
  fragment?: boolean;
}

export interface IncludeProblem {
  /** The page holding the directive, and its target as written. */
  from: string;
  target: string;
  reason: 'not found' | 'cycle' | 'too deep' | 'too large';
}

export interface ResolvedDirectives {
  text: string;
  /** Shortcodes replaced or left out, and includes expanded. */
  shortcodes: number;
  includes: number;
  problems: IncludeProblem[];
}

/** Shortcodes whose inner content is code, and how their language is found. */
const CODE_SHORTCODES = new Set(['code-toggle', 'highlight', 'code']);
/** Shortcodes that insert another page of the site. */
const INCLUDE_SHORTCODES = new Set(['include', 'readfile']);
/** Shortcodes that stand for a page's address. */
const REF_SHORTCODES = new Set(['ref', 'relref']);

/**
 * code-toggle shows a configuration in TOML, YAML and JSON whatever it was written in; its inner
 * text is whichever of them the author used.
 */
function configLanguage(inner: string): string {
  const text = inner.trim();
  if (text.startsWith('{')) return 'json';
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (l === '' || l.startsWith('#')) continue;
    if (/^\[/.test(l) || /^[^:]*=/.test(l)) return 'toml';
    if (/^[^=]*:(?:\s|$)/.test(l) || l.startsWith('- ')) return 'yaml';
    return 'toml';
  }
  return 'toml';
}

function codeLanguage(tag: ShortcodeTag, inner: string): string {
  if (tag.name === 'code-toggle') return configLanguage(inner);
  const lang = tag.named['lang'] ?? (tag.name === 'highlight' ? tag.positional[0] : undefined) ?? '';
  return lang.replace(/[^\w#+.-]/g, '');
}

function fenceFor(inner: string): string {
  let longest = 0;
  for (const run of inner.match(/`{3,}/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

interface State {
  options: SiteDirectiveOptions;
  result: ResolvedDirectives;
  includedChars: number;
}

/** The file an include shortcode names (`{{% include "/_common/x.md" %}}`, or `file=`, `path=`), if any. */
function includeTarget(tag: ShortcodeTag): string | undefined {
  const target = tag.positional[0] ?? tag.named['file'] ?? tag.named['path'];
  return target === undefined || target.trim() === '' ? undefined : target;
}

function expandInclude(tag: ShortcodeTag, from: string, chain: readonly string[], state: State, marked: boolean): string {
  const target = includeTarget(tag);
  if (target === undefined) return '';
  const fail = (reason: IncludeProblem['reason']): string => {
    state.result.problems.push({ from, target, reason });
    return '';
  };
  if (chain.length > MAX_INCLUDE_DEPTH) return fail('too deep');
  if (state.result.includes >= MAX_INCLUDES) return fail('too large');
  const loaded = state.options.load?.(target, from);
  if (!loaded) return fail('not found');
  if (chain.includes(loaded.path)) return fail('cycle');
  const source = normalize(loaded.text);
  const front = findFrontMatter(source);
  const body = front ? source.slice(front.end) : source;
  if (state.includedChars + body.length > MAX_INCLUDED_CHARS) return fail('too large');
  state.includedChars += body.length;
  state.result.includes++;
  const text = renderShortcodes(body, loaded.path, [...chain, loaded.path], state).trim();
  return marked && text !== '' ? markFragment(text, loaded.path) : text;
}

function renderShortcodes(source: string, path: string, chain: readonly string[], state: State): string {
  if (!source.includes('{{<') && !source.includes('{{%')) return source;
  const { tokens, closeOf, strayCloses } = pairShortcodes(scanShortcodes(source));
  const suffixes = new Map<number, string>();
  let out = '';
  // Whether `out` ends at the start of a line (or in its indentation): kept as text is added, so
  // that no step reads `out` back.
  let atLineStart = true;
  const append = (text: string): void => {
    const newline = text.lastIndexOf('\n');
    atLineStart = newline >= 0 ? text.slice(newline + 1).trim() === '' : atLineStart && text.trim() === '';
    out += text;
  };
  let position = 0;
  let codeUntil = -1;
  tokens.forEach((token, index) => {
    append(source.slice(position, token.start));
    position = token.end;
    if (token.type === 'literal') {
      append(token.text);
      return;
    }
    state.result.shortcodes++;
    if (token.closing) {
      if (!strayCloses.has(index)) append(suffixes.get(index) ?? '');
      return;
    }
    const close = closeOf.get(index);
    if (close !== undefined) {
      // Code inside code stays as it is (and each stretch of source is read for a fence once).
      if (CODE_SHORTCODES.has(token.name) && index > codeUntil) {
        codeUntil = close;
        const inner = source.slice(token.end, tokens[close]!.start);
        const fence = fenceFor(inner);
        append(`${atLineStart ? '' : '\n'}${fence}${codeLanguage(token, inner)}${inner.startsWith('\n') ? '' : '\n'}`);
        suffixes.set(close, `${inner.endsWith('\n') ? '' : '\n'}${fence}`);
      }
      // Any other paired shortcode (a note, details, a tab): its inner content stays.
      return;
    }
    if (INCLUDE_SHORTCODES.has(token.name)) {
      // Markers are blocks of their own: only for an include that starts its line (in the first
      // column: indented, it may belong to a list item) and ends it, outside code.
      const lineEnd = source.indexOf('\n', token.end);
      const marked =
        index > codeUntil &&
        (out === '' || out.endsWith('\n')) &&
        source.slice(token.end, lineEnd < 0 ? source.length : lineEnd).trim() === '';
      append(expandInclude(token, path, chain, state, marked));
    }
    else if (REF_SHORTCODES.has(token.name)) append(token.positional[0] ?? token.named['path'] ?? '');
  });
  return out + source.slice(position);
}

function normalize(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/**
 * The page with its site-generator directives resolved (see the top of this file). Front matter
 * is kept as it is. A page without directives comes back unchanged, byte for byte.
 */
export function resolveSiteDirectives(text: string, options: SiteDirectiveOptions): ResolvedDirectives {
  const result: ResolvedDirectives = { text, shortcodes: 0, includes: 0, problems: [] };
  const shortcodes = text.includes('{{<') || text.includes('{{%');
  if (!shortcodes && !options.mdx && !options.fragment) return result;
  const source = normalize(text);
  const front = findFrontMatter(source);
  const head = front ? source.slice(0, front.end) : '';
  let body = front ? source.slice(front.end) : source;
  if (shortcodes) body = renderShortcodes(body, options.path, [options.path], { options, result, includedChars: 0 });
  if (options.mdx) body = removeMdxSyntax(body);
  if (options.fragment && body.trim() !== '') body = markFragment(body.trim(), options.path);
  result.text = head + body;
  return result;
}

/** The targets of the include shortcodes written in a page, as written (includes are not followed). */
export function includeTargets(text: string): string[] {
  if (!text.includes('{{<') && !text.includes('{{%')) return [];
  const targets: string[] = [];
  for (const token of scanShortcodes(normalize(text))) {
    if (token.type !== 'tag' || token.closing || !INCLUDE_SHORTCODES.has(token.name)) continue;
    const target = includeTarget(token);
    if (target !== undefined) targets.push(target);
  }
  return targets;
}
