import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'kb_';
/** Publishable keys (for web pages) say so in their first characters. */
export const PUBLISHABLE_KEY_PREFIX = 'kb_pub_';
/** 40 base62 characters carry about 238 bits of entropy. */
export const KEY_RANDOM_LENGTH = 40;
const KEY_PATTERN = /^kb_(?:pub_)?[0-9A-Za-z]{32,128}$/;

/** Uniform base62 characters by rejection sampling (no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateApiKey(kind: 'secret' | 'publishable' = 'secret'): string {
  return (kind === 'publishable' ? PUBLISHABLE_KEY_PREFIX : KEY_PREFIX) + randomBase62(KEY_RANDOM_LENGTH);
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Display prefix: enough to recognise a key in a listing, far too little to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, (key.startsWith(PUBLISHABLE_KEY_PREFIX) ? PUBLISHABLE_KEY_PREFIX : KEY_PREFIX).length + 6);
}
