/** Content-Type parsing and body text decoding. */
import { TextDecoder } from 'node:util';

export interface ContentType {
  /** type/subtype, lower-case, without parameters. */
  mediaType: string;
  /** The charset parameter, lower-case, if any. */
  charset?: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** A Content-Type header value; null when missing or not a type/subtype. */
export function parseContentType(header: string | undefined): ContentType | null {
  if (header === undefined) return null;
  const [typePart = '', ...params] = header.split(';');
  const mediaType = typePart.trim().toLowerCase();
  const [type, subtype, extra] = mediaType.split('/');
  if (extra !== undefined || !type || !subtype || !TOKEN.test(type) || !TOKEN.test(subtype)) return null;
  const result: ContentType = { mediaType };
  for (const param of params) {
    const equals = param.indexOf('=');
    if (equals === -1) continue;
    if (param.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    let value = param.slice(equals + 1).trim();
    if (value.startsWith('"')) value = value.slice(1, value.indexOf('"', 1) === -1 ? undefined : value.indexOf('"', 1));
    value = value.trim().toLowerCase();
    if (value) result.charset = value;
    break;
  }
  return result;
}

/** A TextDecoder for a charset label (WHATWG labels: latin1 is windows-1252), or null if unknown. */
function decoderFor(label: string | undefined): TextDecoder | null {
  if (!label) return null;
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
}

function bomEncoding(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([^\s"'/>;]+)/i;
const XML_ENCODING = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([^"']+)["']/;

/**
 * The charset an HTML (or XHTML) document declares in its first 1024 bytes: <meta charset>, the
 * http-equiv Content-Type form, or an XML declaration. A UTF-16 declaration read as ASCII cannot
 * be true, so it means UTF-8 (as in the HTML spec); x-user-defined means windows-1252.
 */
export function sniffDeclaredCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  const label = (META_CHARSET.exec(head) ?? XML_ENCODING.exec(head))?.[1]?.toLowerCase();
  if (!label) return undefined;
  if (label.startsWith('utf-16') || label === 'unicode' || label === 'ucs-2') return 'utf-8';
  if (label === 'x-user-defined') return 'windows-1252';
  return label;
}

/**
 * windows-1252 (which the latin1 and iso-8859-1 labels mean) is latin1 except for 0x80-0x9F.
 * Node 20.18.3+ decodes it as plain latin1 (nodejs/node#60888), so those 32 bytes are mapped
 * here, per the WHATWG index; 0x81, 0x8D, 0x8F, 0x90 and 0x9D stay C1 controls.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!));
}

export interface DecodedText {
  text: string;
  /** The encoding the text was decoded with (WHATWG name, e.g. utf-8, windows-1252). */
  charset: string;
}

/**
 * Bytes to text: a byte order mark wins, then the header's charset, then (HTML/XHTML only) a
 * charset declared in the document, else UTF-8. Unknown labels are skipped; invalid sequences
 * become U+FFFD.
 */
export function decodeBody(bytes: Uint8Array, contentType: ContentType): DecodedText {
  const isHtml = contentType.mediaType === 'text/html' || contentType.mediaType === 'application/xhtml+xml';
  const decoder =
    decoderFor(bomEncoding(bytes) ?? undefined) ??
    decoderFor(contentType.charset) ??
    (isHtml ? decoderFor(sniffDeclaredCharset(bytes)) : null) ??
    new TextDecoder('utf-8');
  const text = decoder.encoding === 'windows-1252' ? decodeWindows1252(bytes) : decoder.decode(bytes);
  return { text, charset: decoder.encoding };
}

/**
 * For a response without a usable Content-Type: text/html if the text starts with '<', else
 * text/plain; null if the first 1024 bytes contain a NUL byte (binary) and no UTF-16 BOM.
 */
export function sniffMediaType(bytes: Uint8Array): string | null {
  const bom = bomEncoding(bytes);
  if (!bom && bytes.subarray(0, 1024).includes(0)) return null;
  const head = new TextDecoder(bom ?? 'utf-8').decode(bytes.subarray(0, 1024));
  return head.trimStart().startsWith('<') ? 'text/html' : 'text/plain';
}
