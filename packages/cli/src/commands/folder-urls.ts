/**
 * Where a documentation site serves each file of a folder, for `kb ingest-folder` (pure).
 *
 * A file's link, in order: its front matter `url` (absolute, or site-relative and joined with the
 * base URL); else the base URL joined with a URL template filled from the file's path (after
 * `stripPrefix`); else, with no template, the base URL joined with the file's path as it is.
 *
 * Template fields: `{path}` the path with its extension, `{dir}` the folder ("" at the top),
 * `{name}` the file name without its extension ("" for `index.md` and `_index.md`, which stand for
 * their folder) or the front matter `slug`. Repeated slashes collapse, so `{dir}/{name}/` gives
 * `templates/404/` for `templates/404.md` and `templates/` for `templates/_index.md`.
 *
 * With `lowerCase` (the default of `kb ingest-folder` with a template), the address made from the
 * file's path is lower-cased, as Hugo and most site generators publish it (`methods/site/Menus.md`
 * is served at `/methods/site/menus/`); a front matter `url` is kept as written.
 */
import ignore from 'ignore';

export interface UrlMapping {
  baseUrl: string;
  /** A leading folder the site does not serve (`content/en`). */
  stripPrefix?: string;
  /** e.g. `{dir}/{name}/`; absent: the file's path as it is. */
  template?: string;
  /** Lower-case the address made from the file's path (and front matter slug). */
  lowerCase?: boolean;
}

/** What a file's link was made from (the run's summary counts them). */
export type UrlOrigin = 'front-matter' | 'template' | 'path';

const FIELD = /\{(path|dir|name)\}/g;

/** Whether a template names only known fields. */
export function validTemplate(template: string): boolean {
  const rest = template.replace(FIELD, '');
  return !rest.includes('{') && !rest.includes('}');
}

/** `base` joined with a site path; each segment percent-encoded, slashes kept. */
function join(base: string, path: string): string {
  const root = base.endsWith('/') ? base : `${base}/`;
  const segments = path.replace(/^\/+/, '').split('/').map((s) => encodeURIComponent(s));
  return new URL(segments.join('/'), root).toString();
}

function stripped(path: string, prefix: string | undefined): string {
  if (!prefix) return path;
  const clean = prefix.replace(/^\/+|\/+$/g, '');
  return clean && path.startsWith(`${clean}/`) ? path.slice(clean.length + 1) : path;
}

/**
 * A file's link and what it came from. `path`: the file's path relative to the folder, `/`
 * separated; `frontMatter`: its parsed front matter.
 */
export function pageUrl(path: string, frontMatter: Record<string, unknown>, mapping: UrlMapping): { url: string; origin: UrlOrigin } | undefined {
  const own = frontMatter['url'];
  if (typeof own === 'string' && own.trim() !== '') {
    const trimmed = own.trim();
    if (/^https?:\/\//i.test(trimmed)) return URL.canParse(trimmed) ? { url: trimmed, origin: 'front-matter' } : undefined;
    if (URL.canParse(trimmed, mapping.baseUrl)) return { url: join(mapping.baseUrl, trimmed), origin: 'front-matter' };
  }
  const kept = stripped(path, mapping.stripPrefix);
  const relative = mapping.lowerCase ? kept.toLowerCase() : kept;
  if (mapping.template === undefined) return { url: join(mapping.baseUrl, relative), origin: 'path' };
  const slash = relative.lastIndexOf('/');
  let dir = slash < 0 ? '' : relative.slice(0, slash);
  const file = relative.slice(slash + 1);
  let name = file.replace(/\.[^.]+$/, '');
  const rawSlug = typeof frontMatter['slug'] === 'string' ? frontMatter['slug'].trim().replace(/^\/+|\/+$/g, '') : '';
  const slug = mapping.lowerCase ? rawSlug.toLowerCase() : rawSlug;
  if (name === 'index' || name === '_index') {
    name = '';
    // A folder's own page: its slug renames the folder.
    if (slug && dir) dir = `${dir.slice(0, dir.lastIndexOf('/') + 1)}${slug}`;
  } else if (slug) name = slug;
  const filled = mapping.template.replace(FIELD, (_, field: string) => (field === 'path' ? relative : field === 'dir' ? dir : name));
  return { url: join(mapping.baseUrl, filled.replace(/\/{2,}/g, '/')), origin: 'template' };
}

/** Front matter `aliases` (other addresses of the page) as links, where the base URL resolves them. */
export function aliasUrls(frontMatter: Record<string, unknown>, baseUrl: string): string[] {
  const aliases = frontMatter['aliases'];
  const list = Array.isArray(aliases) ? aliases : typeof aliases === 'string' ? [aliases] : [];
  return list
    .filter((a): a is string => typeof a === 'string' && a.trim() !== '')
    .map((a) => (/^https?:\/\//i.test(a.trim()) ? a.trim() : join(baseUrl, a.trim())));
}

/**
 * Which files of a folder are read: those matching an `include` pattern (all when none), less
 * those matching an `exclude` pattern or a line of the folder's `.kbignore`. Patterns follow
 * .gitignore's rules and match the path relative to the folder.
 */
export function fileFilter(options: { include?: readonly string[]; exclude?: readonly string[]; ignoreFile?: string }): (path: string) => boolean {
  const include = options.include && options.include.length > 0 ? ignore().add([...options.include]) : undefined;
  const exclude = ignore().add([...(options.exclude ?? [])]);
  if (options.ignoreFile) exclude.add(options.ignoreFile);
  return (path) => (include === undefined || include.ignores(path)) && !exclude.ignores(path);
}
