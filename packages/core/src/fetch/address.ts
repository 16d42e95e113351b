/**
 * IP address parsing and classification for the guarded fetcher.
 *
 * Host strings come from URLs (already canonicalised by the WHATWG parser, but not always: a
 * trailing dot or an IPv6 literal still needs work) and from resolvers (injected ones may return
 * anything). Both go through parseHostAddress, which accepts every literal form the WHATWG URL
 * parser and inet_aton(3) accept (decimal, octal, hex, short forms, trailing dot) and returns one
 * canonical spelling, so that no spelling of 127.0.0.1 can slip past classifyAddress.
 */

/** What an address is. Anything but 'public' is refused unless private addresses are allowed. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'unspecified'
  | 'documentation'
  | 'benchmark'
  | 'reserved'
  | 'metadata'
  /** Not an IP address at all. */
  | 'invalid';

type ParsedAddress = { family: 4; value: number } | { family: 6; words: number[] };

const IPV4_PART = /^(?:0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/;

/** One dotted part of a WHATWG/inet_aton IPv4 literal: 0x hex, 0-prefixed octal or decimal. */
function parseIPv4Number(part: string): number | null {
  if (!IPV4_PART.test(part)) return null;
  if (part.startsWith('0x')) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (part.length > 1 && part.startsWith('0')) return parseInt(part.slice(1), 8);
  return parseInt(part, 10);
}

/** The lenient IPv4 forms: 127.0.0.1, 127.1, 2130706433, 0x7f000001, 0177.0.0.1, 127.0.0.1. */
function parseIPv4(input: string): number | null {
  const parts = input.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Number(part);
    if (value === null) return null;
    numbers.push(value);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return null;
  if (last >= 256 ** (4 - numbers.length)) return null;
  let value = last;
  numbers.forEach((n, i) => {
    value += n * 256 ** (3 - i);
  });
  return value;
}

/** The strict dotted quad allowed at the end of an IPv6 literal (::ffff:127.0.0.1). */
function parseDottedQuad(input: string): number | null {
  const parts = input.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(?:0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

function parseGroups(part: string): number[] | null {
  if (part === '') return [];
  const words: number[] = [];
  for (const group of part.split(':')) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    words.push(parseInt(group, 16));
  }
  return words;
}

/** An IPv6 literal (lower-case, no brackets) to its eight 16-bit words; a zone id is dropped. */
function parseIPv6(input: string): number[] | null {
  let text = input;
  const zone = text.indexOf('%');
  if (zone !== -1) {
    if (zone === text.length - 1) return null;
    text = text.slice(0, zone);
  }
  const lastColon = text.lastIndexOf(':');
  if (lastColon === -1) return null;
  let tail: number[] = [];
  const lastPart = text.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    const v4 = parseDottedQuad(lastPart);
    if (v4 === null) return null;
    tail = [v4 >>> 16, v4 & 0xffff];
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = parseGroups(halves[0]!);
  if (!head) return null;
  if (halves.length === 1) {
    const words = [...head, ...tail];
    return words.length === 8 ? words : null;
  }
  const rest = parseGroups(halves[1]!);
  if (!rest) return null;
  const explicit = head.length + rest.length + tail.length;
  if (explicit > 7) return null;
  return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest, ...tail];
}

function parseAddress(host: string): ParsedAddress | null {
  let text = host.trim().toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) {
    const words = parseIPv6(text.slice(1, -1));
    return words ? { family: 6, words } : null;
  }
  if (text.includes(':')) {
    const words = parseIPv6(text);
    return words ? { family: 6, words } : null;
  }
  if (text.length === 0) return null;
  // The WHATWG parser has already done this for URL hosts; resolvers and callers may not have.
  if (text.endsWith('.')) text = text.slice(0, -1);
  const value = parseIPv4(text);
  return value === null ? null : { family: 4, value };
}

function formatIPv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/** RFC 5952: lower-case, no leading zeros, the longest run (2+) of zero groups as '::'. */
function formatIPv6(words: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

function format(address: ParsedAddress): string {
  return address.family === 4 ? formatIPv4(address.value) : formatIPv6(address.words);
}

/**
 * A literal IPv4 or IPv6 host in canonical form (dotted quad; RFC 5952 IPv6 without brackets),
 * or null when the host is a DNS name. Accepts brackets, zone ids (dropped), a trailing dot, and
 * the decimal (2130706433), octal (0177.0.0.1), hex (0x7f.0.0.1, 0x7f000001) and short (127.1)
 * IPv4 spellings. A host that looks numeric but is not a valid address (1.2.3.4.5) is null too:
 * the URL parser refuses those, and whatever a resolver makes of them is checked in its turn.
 */
export function parseHostAddress(host: string): string | null {
  const parsed = parseAddress(host);
  return parsed ? format(parsed) : null;
}

/** The address family of a canonical literal from parseHostAddress. */
export function addressFamily(address: string): 4 | 6 {
  return address.includes(':') ? 6 : 4;
}

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
}

const IPV4_METADATA = new Set([
  ipv4(169, 254, 169, 254), // AWS, GCP, Azure, OCI, DigitalOcean, OpenStack ...
  ipv4(169, 254, 170, 2), // AWS ECS task metadata
  ipv4(100, 100, 100, 200), // Alibaba Cloud
]);

function classifyIPv4(value: number): AddressClass {
  const a = value >>> 24;
  const b = (value >>> 16) & 255;
  const c = (value >>> 8) & 255;
  if (IPV4_METADATA.has(value)) return 'metadata';
  if (value === 0xffffffff) return 'broadcast';
  if (a === 0) return 'unspecified'; // 0.0.0.0/8 "this network": reaches the local host on Linux
  if (a === 10) return 'private';
  if (a === 100 && (b & 0xc0) === 64) return 'cgnat'; // 100.64.0.0/10
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 172 && (b & 0xf0) === 16) return 'private'; // 172.16.0.0/12
  if (a === 192 && b === 0 && c === 0) return 'reserved'; // IETF protocol assignments
  if (a === 192 && b === 0 && c === 2) return 'documentation'; // TEST-NET-1
  if (a === 192 && b === 88 && c === 99) return 'reserved'; // 6to4 relay anycast (deprecated)
  if (a === 192 && b === 168) return 'private';
  if (a === 198 && (b & 0xfe) === 18) return 'benchmark'; // 198.18.0.0/15
  if (a === 198 && b === 51 && c === 100) return 'documentation'; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return 'documentation'; // TEST-NET-3
  if (a >= 224 && a < 240) return 'multicast';
  if (a >= 240) return 'reserved'; // 240.0.0.0/4
  return 'public';
}

/** For transition forms that are not routable on their own: the embedded class, or `otherwise`. */
function embeddedOr(value: number, otherwise: AddressClass): AddressClass {
  const embedded = classifyIPv4(value);
  return embedded === 'public' ? otherwise : embedded;
}

function classifyIPv6(w: readonly number[]): AddressClass {
  const zero = (from: number, to: number): boolean => w.slice(from, to).every((x) => x === 0);
  const low32 = ((w[6]! << 16) >>> 0) + w[7]!;
  if (zero(0, 8)) return 'unspecified';
  if (zero(0, 7) && w[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d IPv4-mapped: a dual-stack socket connects to the IPv4 address itself.
  if (zero(0, 5) && w[5] === 0xffff) return classifyIPv4(low32);
  // ::ffff:0:a.b.c.d IPv4-translated (SIIT) and ::a.b.c.d IPv4-compatible (deprecated).
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return embeddedOr(low32, 'reserved');
  if (zero(0, 6)) return embeddedOr(low32, 'reserved');
  // 64:ff9b::/96 well-known NAT64 prefix: the gateway connects to the embedded IPv4 address.
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return classifyIPv4(low32);
  // 64:ff9b:1::/48 local-use NAT64 (RFC 8215): never global.
  if (w[0] === 0x64 && w[1] === 0xff9b && w[2] === 1) return embeddedOr(low32, 'private');
  if (w[0] === 0x100 && zero(1, 4)) return 'reserved'; // 100::/64 discard-only
  if (w[0] === 0x2001 && w[1] === 0) {
    // Teredo: server IPv4 in bits 32-63, client IPv4 inverted in the last 32 bits.
    const client = classifyIPv4(~low32 >>> 0);
    if (client !== 'public') return client;
    return classifyIPv4(((w[2]! << 16) >>> 0) + w[3]!);
  }
  if (w[0] === 0x2001 && w[1] === 0xdb8) return 'documentation'; // 2001:db8::/32
  if (w[0] === 0x2001 && w[1] === 2 && w[2] === 0) return 'benchmark'; // 2001:2::/48
  if (w[0] === 0x2001 && w[1]! < 0x200) return 'reserved'; // rest of 2001::/23 (ORCHID, ...)
  if (w[0] === 0x2002) return classifyIPv4(((w[1]! << 16) >>> 0) + w[2]!); // 6to4 2002::/16
  if (w[0] === 0x3fff && w[1]! < 0x1000) return 'documentation'; // 3fff::/20
  if (w[0] === 0x5f00) return 'reserved'; // SRv6 SIDs
  if (w[0] === 0xfd00 && w[1] === 0xec2 && zero(2, 7) && w[7] === 0x254) return 'metadata'; // AWS
  if ((w[0]! & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((w[0]! & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((w[0]! & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 site-local (deprecated)
  if ((w[0]! & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  if ((w[0]! & 0xe000) !== 0x2000) return 'reserved'; // outside 2000::/3 global unicast
  return 'public';
}

/**
 * The class of an IP address in any form parseHostAddress accepts. Transition forms that embed an
 * IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4, Teredo) take the embedded address's
 * class when that is not public. Not an IP address: 'invalid'.
 */
export function classifyAddress(ip: string): AddressClass {
  const parsed = parseAddress(ip);
  if (!parsed) return 'invalid';
  return parsed.family === 4 ? classifyIPv4(parsed.value) : classifyIPv6(parsed.words);
}
