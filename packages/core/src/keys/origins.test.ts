import { describe, expect, it } from 'vitest';
import { formatOriginPattern, originAllowed, parseOrigin, parseOriginPattern, sameOrigin, type OriginPattern } from './origins.ts';

const patterns = (...entries: string[]): OriginPattern[] =>
  entries.map((entry) => {
    const pattern = parseOriginPattern(entry);
    if ('error' in pattern) throw new Error(pattern.error);
    return pattern;
  });

describe('allowed origins', () => {
  it('normalises entries: lower case, default ports left out, no trailing slash', () => {
    expect(patterns('HTTPS://Docs.Example.COM:443/', 'http://localhost:80', 'http://localhost:*', 'https://*.example.com:8443', 'http://[::1]:3000').map(formatOriginPattern)).toEqual([
      'https://docs.example.com',
      'http://localhost',
      'http://localhost:*',
      'https://*.example.com:8443',
      'http://[::1]:3000',
    ]);
  });

  it('refuses what is not an origin, saying why', () => {
    const error = (entry: string) => {
      const pattern = parseOriginPattern(entry);
      return 'error' in pattern ? pattern.error : undefined;
    };
    expect(error('*')).toMatch(/every site/);
    expect(error('https://docs.example.com/help')).toMatch(/has a path/);
    expect(error('docs.example.com')).toMatch(/not an origin/);
    expect(error('ftp://docs.example.com')).toMatch(/not an origin/);
    expect(error('https://user@docs.example.com')).toMatch(/not an origin/);
    expect(error('https://*.com')).toMatch(/two labels/);
    expect(error('https://docs.*.com')).toMatch(/leftmost/);
    expect(error('https://*.10.0.0.1')).toBeDefined();
    expect(error('https://-bad-.example.com')).toMatch(/invalid host/);
    expect(error('https://docs.example.com:0')).toMatch(/invalid port/);
    expect(error('https://docs.example.com:70000')).toMatch(/invalid port/);
  });

  it('matches exact origins, any subdomain (never the bare domain) and any port only where listed', () => {
    const allowed = patterns('https://docs.example.com', 'https://*.example.org', 'http://localhost:*');
    for (const origin of ['https://docs.example.com', 'https://DOCS.example.com:443', 'https://a.example.org', 'https://a.b.example.org', 'http://localhost', 'http://localhost:5173']) {
      expect(originAllowed(allowed, origin), origin).toBe(true);
    }
    for (const origin of ['http://docs.example.com', 'https://docs.example.com:8443', 'https://example.org', 'https://evilexample.org', 'https://localhost:5173', 'null', '', 'https://docs.example.com/']) {
      expect(originAllowed(allowed, origin), origin).toBe(false);
    }
  });

  it('reads Origin headers and compares them with default ports left out', () => {
    expect(parseOrigin('https://docs.example.com:443')).toEqual({ scheme: 'https', host: 'docs.example.com', port: null });
    expect(parseOrigin('null')).toBeNull();
    expect(sameOrigin('http://127.0.0.1:3000', 'http://127.0.0.1:3000')).toBe(true);
    expect(sameOrigin('https://kb.example.com', 'https://kb.example.com:443')).toBe(true);
    expect(sameOrigin('https://kb.example.com', 'http://kb.example.com')).toBe(false);
  });
});
