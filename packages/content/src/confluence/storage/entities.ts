/**
 * Character references in storage-format text and attribute values. Storage is XML, but
 * Confluence writes HTML named entities freely (`&nbsp;`, `&rsquo;`, `&mdash;`), so the HTML 4
 * set (plus `&apos;` and a few common HTML5 names) is recognised. Unknown references are kept
 * as written.
 */

/** Latin-1 supplement names, in code point order from U+00A0. */
const LATIN_1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute ' +
  'micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring ' +
  'AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml ' +
  'times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil ' +
  'egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ' +
  'ugrave uacute ucirc uuml yacute thorn yuml';

/** Greek capitals from U+0391 (U+03A2 is unassigned) and small letters from U+03B1. */
const GREEK = 'Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho - Sigma Tau Upsilon Phi Chi Psi Omega';

/** The remaining names, as name:code point. */
const OTHERS =
  'quot:34 amp:38 apos:39 lt:60 gt:62 OElig:338 oelig:339 Scaron:352 scaron:353 Yuml:376 fnof:402 circ:710 ' +
  'tilde:732 thetasym:977 upsih:978 piv:982 ensp:8194 emsp:8195 thinsp:8201 zwnj:8204 zwj:8205 lrm:8206 rlm:8207 ' +
  'hyphen:8208 dash:8208 ndash:8211 mdash:8212 lsquo:8216 rsquo:8217 sbquo:8218 ldquo:8220 rdquo:8221 bdquo:8222 ' +
  'dagger:8224 Dagger:8225 bull:8226 hellip:8230 permil:8240 prime:8242 Prime:8243 lsaquo:8249 rsaquo:8250 ' +
  'oline:8254 frasl:8260 euro:8364 image:8465 weierp:8472 real:8476 trade:8482 alefsym:8501 larr:8592 uarr:8593 ' +
  'rarr:8594 darr:8595 harr:8596 crarr:8629 lArr:8656 uArr:8657 rArr:8658 dArr:8659 hArr:8660 forall:8704 ' +
  'part:8706 exist:8707 empty:8709 nabla:8711 isin:8712 notin:8713 ni:8715 prod:8719 sum:8721 minus:8722 ' +
  'lowast:8727 radic:8730 prop:8733 infin:8734 ang:8736 and:8743 or:8744 cap:8745 cup:8746 int:8747 there4:8756 ' +
  'sim:8764 cong:8773 asymp:8776 ne:8800 equiv:8801 le:8804 ge:8805 sub:8834 sup:8835 nsub:8836 sube:8838 ' +
  'supe:8839 oplus:8853 otimes:8855 perp:8869 sdot:8901 lceil:8968 rceil:8969 lfloor:8970 rfloor:8971 ' +
  'lang:10216 rang:10217 loz:9674 starf:9733 star:9734 spades:9824 clubs:9827 hearts:9829 diams:9830 ' +
  'check:10003 cross:10007';

function buildTable(): Map<string, string> {
  const table = new Map<string, string>();
  LATIN_1.split(' ').forEach((name, index) => table.set(name, String.fromCharCode(0xa0 + index)));
  GREEK.split(' ').forEach((name, index) => {
    if (name === '-') return;
    table.set(name, String.fromCharCode(0x391 + index));
    // Small letters follow the capitals' order; final sigma sits where the gap is.
    table.set(name.toLowerCase(), String.fromCharCode(0x3b1 + index));
  });
  table.set('sigmaf', '\u03c2');
  for (const entry of OTHERS.split(' ')) {
    const [name, code] = entry.split(':');
    if (name && code) table.set(name, String.fromCodePoint(Number(code)));
  }
  return table;
}

const NAMED = buildTable();

/** What browsers make of numeric references to the C1 range: the Windows-1252 characters. */
const WINDOWS_1252: Record<number, number> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
  0x88: 0x02c6, 0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018,
  0x92: 0x2019, 0x93: 0x201c, 0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc,
  0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a, 0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

/** Longest reference recognised, `&` and `;` included (`&thetasym;`, `&#x10FFFF;`). */
const MAX_REFERENCE_LENGTH = 34;

const isDigit = (code: number): boolean => code >= 48 && code <= 57;
const isHexDigit = (code: number): boolean => isDigit(code) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70);
const isAlphanumeric = (code: number): boolean => isDigit(code) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);

function fromCodePoint(code: number): string {
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(WINDOWS_1252[code] ?? code);
}

/**
 * The character a reference starting at `amp` stands for, and where it ends; null when this is
 * not a reference we know (it is then kept as written).
 */
function readReference(text: string, amp: number): { value: string; end: number } | null {
  const limit = Math.min(text.length, amp + MAX_REFERENCE_LENGTH);
  let index = amp + 1;
  if (text.charCodeAt(index) === 35) {
    // &#123; or &#x1F600;
    index++;
    const hex = text.charCodeAt(index) === 120 || text.charCodeAt(index) === 88;
    if (hex) index++;
    const digitsStart = index;
    while (index < limit && (hex ? isHexDigit(text.charCodeAt(index)) : isDigit(text.charCodeAt(index)))) index++;
    if (index === digitsStart || index - digitsStart > 8 || text.charCodeAt(index) !== 59) return null;
    const code = Number.parseInt(text.slice(digitsStart, index), hex ? 16 : 10);
    return { value: fromCodePoint(code), end: index + 1 };
  }
  while (index < limit && isAlphanumeric(text.charCodeAt(index))) index++;
  if (index === amp + 1 || text.charCodeAt(index) !== 59) return null;
  const value = NAMED.get(text.slice(amp + 1, index));
  return value === undefined ? null : { value, end: index + 1 };
}

/** Replaces character references (`&amp;`, `&#8217;`, `&#x1F600;`, `&rsquo;`) with their characters. */
export function decodeEntities(text: string): string {
  let amp = text.indexOf('&');
  if (amp === -1) return text;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    const reference = readReference(text, amp);
    if (reference) {
      out += text.slice(from, amp) + reference.value;
      from = reference.end;
    }
    amp = text.indexOf('&', reference ? reference.end : amp + 1);
  }
  return out + text.slice(from);
}
