/** The formats a file is read in. */
export type FileFormat = 'pdf' | 'docx' | 'html' | 'text' | 'markdown';

export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** Media types taken, and the format each is read as. */
export const FILE_MEDIA_TYPES: ReadonlyMap<string, FileFormat> = new Map([
  ['application/pdf', 'pdf'],
  [DOCX_TYPE, 'docx'],
  ['text/html', 'html'],
  ['application/xhtml+xml', 'html'],
  ['text/markdown', 'markdown'],
  ['text/x-markdown', 'markdown'],
  ['text/plain', 'text'],
]);

/** File name extensions, for a file sent without a type of its own (application/octet-stream). */
const EXTENSIONS: ReadonlyMap<string, FileFormat> = new Map([
  ['pdf', 'pdf'],
  ['docx', 'docx'],
  ['html', 'html'],
  ['htm', 'html'],
  ['xhtml', 'html'],
  ['md', 'markdown'],
  ['markdown', 'markdown'],
  ['txt', 'text'],
  ['text', 'text'],
]);

/** Types that say nothing of the content: the file name (else the content) decides. */
const UNTYPED = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/x-www-form-urlencoded']);

/** The supported types, for messages. */
export const SUPPORTED_FILE_TYPES = 'PDF (application/pdf), Word (.docx), HTML (text/html), Markdown (text/markdown) and plain text (text/plain)';

export function extensionFormat(filename: string | undefined): FileFormat | undefined {
  const match = filename ? /\.([a-z0-9]+)$/i.exec(filename) : null;
  return match ? EXTENSIONS.get(match[1]!.toLowerCase()) : undefined;
}

/**
 * The format a file's declared type (and name) name: undefined when they leave it open (no type,
 * or application/octet-stream, and no known extension); null when the type is one the service
 * does not read. A text type with a Markdown file name is Markdown (browsers send .md as text/plain).
 */
export function declaredFormat(mediaType: string | undefined, filename: string | undefined): FileFormat | null | undefined {
  const type = (mediaType ?? '').split(';')[0]!.trim().toLowerCase();
  const byName = extensionFormat(filename);
  if (UNTYPED.has(type)) return byName;
  const format = FILE_MEDIA_TYPES.get(type);
  if (format === undefined) return null;
  if (format === 'text' && byName === 'markdown') return 'markdown';
  return format;
}
