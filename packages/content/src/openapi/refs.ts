/**
 * `$ref` resolution inside one spec. Only same-document references (`#/...` JSON pointers) are
 * followed; anything else (http:, https:, file:, relative paths) is reported as external and is
 * never fetched or read.
 */

export type JsonObject = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The result of following a value's `$ref` chain. */
export type Deref =
  /** `value` is the target (with any sibling keys of the `$ref` laid over it). */
  | { kind: 'value'; value: unknown; ref: string | undefined }
  | { kind: 'external'; ref: string }
  | { kind: 'missing'; ref: string }
  | { kind: 'cycle'; ref: string };

/** How many `$ref`s may point at further `$ref`s before giving up. */
const MAX_REF_CHAIN = 32;

function decodeToken(token: string): string {
  let decoded = token;
  try {
    decoded = decodeURIComponent(token);
  } catch {
    // Not percent-encoded after all.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The last segment of a reference, decoded: `#/components/schemas/Pet` -> `Pet`. */
export function refName(ref: string): string {
  const hash = ref.indexOf('#');
  const fragment = hash >= 0 ? ref.slice(hash + 1) : ref;
  const segments = fragment.split('/').filter((segment) => segment !== '');
  const last = segments[segments.length - 1];
  return last === undefined ? ref : decodeToken(last);
}

export class RefResolver {
  private readonly cache = new Map<string, { found: boolean; value: unknown }>();

  constructor(private readonly root: unknown) {}

  /** The value a `#/...` pointer designates, or found: false. */
  private lookup(ref: string): { found: boolean; value: unknown } {
    const cached = this.cache.get(ref);
    if (cached) return cached;
    let value: unknown = this.root;
    let found = true;
    const tokens = ref.slice(1).split('/').slice(1);
    if (ref !== '#' && !ref.startsWith('#/')) found = false;
    for (const raw of found ? tokens : []) {
      const token = decodeToken(raw);
      if (Array.isArray(value) && /^(?:0|[1-9]\d*)$/.test(token) && Number(token) < value.length) {
        value = value[Number(token)];
      } else if (isObject(value) && Object.hasOwn(value, token)) {
        value = value[token];
      } else {
        found = false;
        break;
      }
    }
    const result = { found, value: found ? value : undefined };
    this.cache.set(ref, result);
    return result;
  }

  /**
   * Follows `$ref`s from `node` until a value without one. Sibling keys of a `$ref` (allowed by
   * OpenAPI 3.1, e.g. a description) are laid over the target.
   */
  deref(node: unknown): Deref {
    let current = node;
    let lastRef: string | undefined;
    let overlay: JsonObject | undefined;
    const seen = new Set<string>();
    for (let hop = 0; isObject(current) && typeof current.$ref === 'string'; hop++) {
      const ref = current.$ref.trim();
      if (!ref.startsWith('#')) return { kind: 'external', ref };
      if (seen.has(ref) || hop >= MAX_REF_CHAIN) return { kind: 'cycle', ref };
      seen.add(ref);
      const siblings = Object.keys(current).filter((key) => key !== '$ref');
      if (siblings.length > 0) {
        overlay ??= {};
        for (const key of siblings) if (!Object.hasOwn(overlay, key)) overlay[key] = current[key];
      }
      const target = this.lookup(ref);
      if (!target.found) return { kind: 'missing', ref };
      lastRef = ref;
      current = target.value;
    }
    if (overlay && isObject(current)) current = { ...current, ...overlay };
    return { kind: 'value', value: current, ref: lastRef };
  }
}
