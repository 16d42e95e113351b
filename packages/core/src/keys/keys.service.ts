import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { NAMESPACES, type Namespace } from '../namespaces.ts';
import { jsonList, type ApiKeyRecord, type ApiKeysRepository, type ApiKeyValues } from './keys.repository.ts';
import { formatOriginPattern, MAX_ALLOWED_ORIGINS, parseOriginPattern, type OriginPattern } from './origins.ts';
import { digestsEqual, displayPrefix, generateApiKey, looksLikeApiKey, sha256Hex } from './secret.ts';
import {
  PUBLISHABLE_DEFAULTS,
  type ApiKeyView,
  type AuthenticatedKey,
  type CreateApiKeyInput,
  type CreatedApiKey,
  type KeyKind,
  type PublishableLimits,
  type UpdateApiKeyInput,
} from './types.ts';

const PUBLISHABLE_ONLY = ['allowedOrigins', 'visitorRateLimitRpm', 'visitorRateLimitRpd', 'dailyAnswerLimit'] as const;

/** Namespaces in their usual order, once each. */
function orderedNamespaces(namespaces: readonly string[]): Namespace[] {
  return NAMESPACES.filter((namespace) => namespaces.includes(namespace));
}

/** The origin patterns of a list, normalised; a bad entry is a 400 saying what is wrong with it. */
function originPatterns(entries: readonly string[]): OriginPattern[] {
  if (entries.length > MAX_ALLOWED_ORIGINS) throw new AppError('BAD_REQUEST', `A key may list at most ${MAX_ALLOWED_ORIGINS} allowed origins`);
  return entries.map((entry) => {
    const pattern = parseOriginPattern(entry);
    if ('error' in pattern) throw new AppError('BAD_REQUEST', `allowedOrigins: ${pattern.error}`);
    return pattern;
  });
}

function normalisedOrigins(entries: readonly string[]): string[] {
  return [...new Set(originPatterns(entries).map(formatOriginPattern))];
}

function storedPatterns(value: unknown): OriginPattern[] {
  return (jsonList(value) ?? []).flatMap((entry) => {
    const pattern = parseOriginPattern(entry);
    return 'error' in pattern ? [] : [pattern];
  });
}

function toView(row: ApiKeyRecord): ApiKeyView {
  const namespaces = jsonList(row.namespaces);
  return {
    id: row.id,
    label: row.label,
    kind: row.kind,
    keyPrefix: row.key_prefix,
    admin: row.is_admin,
    namespaces: namespaces === null ? null : orderedNamespaces(namespaces),
    requestCount: Number(row.request_count),
    rateLimitRpm: row.rate_limit_rpm,
    rateLimitRpd: row.rate_limit_rpd,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
    ...(row.kind === 'publishable'
      ? {
          key: row.publishable_key ?? undefined,
          allowedOrigins: jsonList(row.allowed_origins) ?? [],
          visitorRateLimitRpm: row.visitor_rate_limit_rpm,
          visitorRateLimitRpd: row.visitor_rate_limit_rpd,
          dailyAnswerLimit: row.daily_answer_limit,
        }
      : {}),
  };
}

/**
 * The rules a key's settings follow, for creation and updates alike: a publishable key names its
 * namespaces and origins and is never admin; a secret key takes no origins or visitor budgets,
 * and an admin key no namespaces (it can make itself any key).
 */
function checkSettings(kind: KeyKind, admin: boolean, input: UpdateApiKeyInput, creating: boolean): void {
  if (kind === 'publishable') {
    if (admin) throw new AppError('BAD_REQUEST', 'A publishable key cannot be an admin key: it is used from web pages, where anyone can read it');
    if ((creating && input.namespaces === undefined) || input.namespaces === null || input.namespaces?.length === 0) {
      throw new AppError('BAD_REQUEST', 'A publishable key needs namespaces: the ones its pages may read, e.g. ["user_docs"]');
    }
    if ((creating && input.allowedOrigins === undefined) || input.allowedOrigins?.length === 0) {
      throw new AppError('BAD_REQUEST', 'A publishable key needs allowedOrigins: the sites that may use it, e.g. ["https://docs.example.com"]');
    }
    return;
  }
  const misplaced = PUBLISHABLE_ONLY.filter((field) => input[field] !== undefined);
  if (misplaced.length > 0) throw new AppError('BAD_REQUEST', `${misplaced.join(', ')}: only publishable keys (kind "publishable") take ${misplaced.length === 1 ? 'it' : 'them'}`);
  if (admin && input.namespaces !== undefined && input.namespaces !== null) {
    throw new AppError('BAD_REQUEST', 'An admin key reaches every namespace: leave namespaces out, or make a key without admin rights');
  }
  if (input.namespaces?.length === 0) throw new AppError('BAD_REQUEST', 'namespaces must name at least one namespace (null: all of them)');
}

/**
 * How long a verified key is trusted without reading the store again. Reading it was one of a
 * search's two database round trips. A revocation in this process takes effect at once; one made
 * by another process (another server on the same PostgreSQL, `kb keys revoke`) within this time.
 */
export const VERIFIED_KEY_TTL_MS = 1_000;
/** Verified keys remembered at most (the oldest go first). */
const VERIFIED_KEY_ENTRIES = 10_000;
/** How long the origins of all publishable keys (what preflights are answered for) are kept between reads. */
export const ORIGINS_TTL_MS = 5_000;

export class ApiKeysService {
  /** Verified keys by secret hash; unknown and revoked secrets are never remembered. */
  private readonly verified = new Map<string, { key: AuthenticatedKey; until: number }>();
  private origins: { patterns: Promise<OriginPattern[]>; until: number } | undefined;

  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly options: { verifiedKeyTtlMs?: number; originsTtlMs?: number; now?: () => number } = {},
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const kind = input.kind ?? 'secret';
    const admin = input.admin ?? false;
    checkSettings(kind, admin, input, true);
    const key = generateApiKey(kind);
    const publishable = kind === 'publishable';
    const limits: PublishableLimits = {
      visitorRateLimitRpm: input.visitorRateLimitRpm === undefined ? PUBLISHABLE_DEFAULTS.visitorRateLimitRpm : input.visitorRateLimitRpm,
      visitorRateLimitRpd: input.visitorRateLimitRpd === undefined ? PUBLISHABLE_DEFAULTS.visitorRateLimitRpd : input.visitorRateLimitRpd,
      dailyAnswerLimit: input.dailyAnswerLimit === undefined ? PUBLISHABLE_DEFAULTS.dailyAnswerLimit : input.dailyAnswerLimit,
    };
    const values: ApiKeyValues = {
      label: input.label,
      kind,
      keyHash: sha256Hex(key),
      keyPrefix: displayPrefix(key),
      admin,
      namespaces: input.namespaces ? orderedNamespaces(input.namespaces) : null,
      rateLimitRpm: input.rateLimitRpm ?? null,
      rateLimitRpd: input.rateLimitRpd ?? null,
      publishableKey: publishable ? key : null,
      allowedOrigins: publishable ? normalisedOrigins(input.allowedOrigins!) : null,
      visitorRateLimitRpm: publishable ? limits.visitorRateLimitRpm : null,
      visitorRateLimitRpd: publishable ? limits.visitorRateLimitRpd : null,
      dailyAnswerLimit: publishable ? limits.dailyAnswerLimit : null,
    };
    const row = await this.repository.insert(values);
    if (publishable) this.origins = undefined;
    const { keyPrefix: _prefix, requestCount: _count, lastUsedAt: _used, revokedAt: _revoked, ...view } = toView(row);
    return { ...view, key };
  }

  async list(): Promise<ApiKeyView[]> {
    return (await this.repository.list()).map(toView);
  }

  async get(id: string): Promise<ApiKeyView> {
    const row = isUuid(id) ? await this.repository.findById(id) : undefined;
    if (!row) throw new AppError('NOT_FOUND', `No API key with id ${id}`);
    return toView(row);
  }

  /** Changes a key's label, limits, namespaces or (publishable keys) origins and budgets. */
  async update(id: string, input: UpdateApiKeyInput): Promise<ApiKeyView> {
    const current = isUuid(id) ? await this.repository.findById(id) : undefined;
    if (!current) throw new AppError('NOT_FOUND', `No API key with id ${id}`);
    if (current.revoked_at !== null) throw new AppError('CONFLICT', `API key ${id} is revoked: it cannot be changed`);
    checkSettings(current.kind, current.is_admin, input, false);
    const row = await this.repository.update(id, {
      ...(input.label !== undefined ? { label: input.label } : {}),
      ...(input.namespaces !== undefined ? { namespaces: input.namespaces === null ? null : orderedNamespaces(input.namespaces) } : {}),
      ...(input.rateLimitRpm !== undefined ? { rateLimitRpm: input.rateLimitRpm } : {}),
      ...(input.rateLimitRpd !== undefined ? { rateLimitRpd: input.rateLimitRpd } : {}),
      ...(input.allowedOrigins !== undefined ? { allowedOrigins: normalisedOrigins(input.allowedOrigins) } : {}),
      ...(input.visitorRateLimitRpm !== undefined ? { visitorRateLimitRpm: input.visitorRateLimitRpm } : {}),
      ...(input.visitorRateLimitRpd !== undefined ? { visitorRateLimitRpd: input.visitorRateLimitRpd } : {}),
      ...(input.dailyAnswerLimit !== undefined ? { dailyAnswerLimit: input.dailyAnswerLimit } : {}),
    });
    if (!row) throw new AppError('CONFLICT', `API key ${id} is revoked: it cannot be changed`);
    this.forget(id);
    if (row.kind === 'publishable') this.origins = undefined;
    return toView(row);
  }

  async revoke(id: string): Promise<{ revoked: true; id: string }> {
    if (isUuid(id)) {
      const revoked = await this.repository.revoke(id);
      this.forget(id);
      this.origins = undefined;
      if (revoked) return { revoked: true, id: revoked.id };
      if (await this.repository.findById(id)) {
        throw new AppError('CONFLICT', `API key ${id} is already revoked`);
      }
    }
    throw new AppError('NOT_FOUND', `No API key with id ${id}`);
  }

  /**
   * An admin key for the first start of a store that has never held a key, so that a new user
   * can call the API without stopping the server; null when the store holds keys, or another
   * process issued the first key already.
   */
  async issueFirstAdminKey(): Promise<CreatedApiKey | null> {
    if (await this.repository.any()) return null;
    if (!(await this.repository.claimFirstKey())) return null;
    return this.create({ label: 'first admin key', admin: true });
  }

  /** The active key a secret belongs to, or null for an unknown, malformed or revoked secret. */
  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    if (!looksLikeApiKey(secret)) return null;
    const hash = sha256Hex(secret);
    const now = this.now();
    const remembered = this.verified.get(hash);
    if (remembered && remembered.until > now) return remembered.key;
    this.verified.delete(hash);
    const row = await this.repository.findByHash(hash);
    if (!row || !digestsEqual(row.key_hash, hash) || row.revoked_at !== null) return null;
    const namespaces = jsonList(row.namespaces);
    const key: AuthenticatedKey = {
      id: row.id,
      label: row.label,
      kind: row.kind,
      admin: row.is_admin,
      namespaces: namespaces === null ? null : orderedNamespaces(namespaces),
      rateLimitRpm: row.rate_limit_rpm,
      rateLimitRpd: row.rate_limit_rpd,
      allowedOrigins: row.kind === 'publishable' ? storedPatterns(row.allowed_origins) : [],
      visitorRateLimitRpm: row.visitor_rate_limit_rpm,
      visitorRateLimitRpd: row.visitor_rate_limit_rpd,
      dailyAnswerLimit: row.daily_answer_limit,
    };
    const ttl = this.options.verifiedKeyTtlMs ?? VERIFIED_KEY_TTL_MS;
    if (ttl > 0) {
      if (this.verified.size >= VERIFIED_KEY_ENTRIES) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(hash, { key, until: now + ttl });
    }
    return key;
  }

  /**
   * The origins of every active publishable key: a CORS preflight carries no key, so it is answered
   * for an origin some key allows. Read again after a change in this process, and every few
   * seconds for changes made by others.
   */
  async publishableOrigins(): Promise<OriginPattern[]> {
    const now = this.now();
    if (!this.origins || this.origins.until <= now) {
      const patterns = this.repository.activeOrigins().then((entries) => storedPatterns(entries));
      this.origins = { patterns, until: now + (this.options.originsTtlMs ?? ORIGINS_TTL_MS) };
      patterns.catch(() => (this.origins = undefined));
    }
    return this.origins.patterns;
  }

  private forget(id: string): void {
    for (const [hash, entry] of this.verified) if (entry.key.id === id) this.verified.delete(hash);
  }
}
