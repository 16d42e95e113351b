/**
 * The web origins a publishable key may be used from: exact origins (`https://docs.example.com`),
 * any subdomain (`https://*.example.com`, never the bare domain) and any port
 * (`http://localhost:*`, only where listed). Pure: no I/O.
 */

export interface OriginPattern {
  scheme: 'http' | 'https';
  /** The host, lower case; for a wildcard, the suffix after `*.`. */
  host: string;
  /** Any subdomain of `host`. */
  anySubdomain: boolean;
  /** The port; null for the scheme's default, '*' for any. */
  port: number | '*' | null;
}

const DEFAULT_PORTS = { http: 80, https: 443 } as const;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Most origins one key may list. */
export const MAX_ALLOWED_ORIGINS = 50;

/** The pattern an allowed-origins entry stands for, or why it is not one. */
export function parseOriginPattern(entry: string): OriginPattern | { error: string } {
  const text = entry.trim().toLowerCase();
  const match = /^(https?):\/\/([^/:?#@]+|\[[0-9a-f:.]+\])(?::(\d{1,5}|\*))?(\/?)$/.exec(text);
  if (!match) {
    if (text === '*') return { error: '"*" would let every site use the key: list each site as https://host (https://*.example.com for its subdomains)' };
    if (/^https?:\/\/[^/]+\/./.test(text)) return { error: `"${entry}" has a path: an origin is scheme://host[:port] only` };
    return { error: `"${entry}" is not an origin: write scheme://host[:port], e.g. https://docs.example.com` };
  }
  const scheme = match[1] as 'http' | 'https';
  let host = match[2]!;
  const portText = match[3];
  const anySubdomain = host.startsWith('*.');
  if (anySubdomain) host = host.slice(2);
  if (host.includes('*')) return { error: `"${entry}": a wildcard may only stand for the leftmost labels (https://*.example.com)` };
  if (!host.startsWith('[')) {
    const labels = host.split('.');
    if (!labels.every((label) => LABEL.test(label))) return { error: `"${entry}" has an invalid host name` };
    if (IPV4.test(host) && labels.some((label) => Number(label) > 255)) return { error: `"${entry}" has an invalid address` };
    // `https://*.com` would allow every site under a top-level domain.
    if (anySubdomain && (labels.length < 2 || IPV4.test(host))) return { error: `"${entry}": a wildcard needs a domain of at least two labels (https://*.example.com)` };
  } else if (anySubdomain) {
    return { error: `"${entry}": an address takes no wildcard` };
  }
  let port: OriginPattern['port'] = null;
  if (portText === '*') port = '*';
  else if (portText !== undefined) {
    const number = Number(portText);
    if (number < 1 || number > 65_535) return { error: `"${entry}" has an invalid port` };
    port = number === DEFAULT_PORTS[scheme] ? null : number;
  }
  return { scheme, host, anySubdomain, port };
}

/** An entry as listings show it (normalised: lower case, default port left out, no trailing slash). */
export function formatOriginPattern(pattern: OriginPattern): string {
  const port = pattern.port === null ? '' : `:${pattern.port}`;
  return `${pattern.scheme}://${pattern.anySubdomain ? '*.' : ''}${pattern.host}${port}`;
}

/** An `Origin` header as scheme, host and port; null for `null`, or anything that is not an http(s) origin. */
export function parseOrigin(origin: string): { scheme: 'http' | 'https'; host: string; port: number | null } | null {
  const match = /^(https?):\/\/([^/:?#@\s]+|\[[0-9a-fA-F:.]+\])(?::(\d{1,5}))?$/.exec(origin);
  if (!match) return null;
  const scheme = match[1]!.toLowerCase() as 'http' | 'https';
  const port = match[3] === undefined ? null : Number(match[3]);
  return { scheme, host: match[2]!.toLowerCase(), port: port === DEFAULT_PORTS[scheme] ? null : port };
}

/** Whether two origins are the same (scheme, host and port, default ports left out). */
export function sameOrigin(a: string, b: string): boolean {
  const left = parseOrigin(a);
  const right = parseOrigin(b);
  return left !== null && right !== null && left.scheme === right.scheme && left.host === right.host && left.port === right.port;
}

/** Whether an `Origin` header matches a pattern. */
export function originMatches(pattern: OriginPattern, origin: string): boolean {
  const parsed = parseOrigin(origin);
  if (!parsed || parsed.scheme !== pattern.scheme) return false;
  if (pattern.port !== '*' && parsed.port !== pattern.port) return false;
  return pattern.anySubdomain ? parsed.host.endsWith(`.${pattern.host}`) : parsed.host === pattern.host;
}

/** Whether a bare host name (a bot-check provider's `hostname`) is one the patterns name, whatever their scheme and port. */
export function hostAllowed(patterns: readonly OriginPattern[], hostname: string): boolean {
  const host = hostname.trim().toLowerCase();
  return patterns.some((pattern) => (pattern.anySubdomain ? host.endsWith(`.${pattern.host}`) : host === pattern.host || host === pattern.host.replace(/^\[|\]$/g, '')));
}

/** Whether an `Origin` header matches any of the patterns. */
export function originAllowed(patterns: readonly OriginPattern[], origin: string): boolean {
  return patterns.some((pattern) => originMatches(pattern, origin));
}
