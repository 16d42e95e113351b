import { AppError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { ApiKeysRepository, ApiKeyRecord } from './keys.repository.ts';
import { digestsEqual, displayPrefix, generateApiKey, looksLikeApiKey, sha256Hex } from './secret.ts';
import type { ApiKeyView, AuthenticatedKey, CreateApiKeyInput, CreatedApiKey } from './types.ts';

function toView(row: ApiKeyRecord): ApiKeyView {
  return {
    id: row.id,
    label: row.label,
    keyPrefix: row.key_prefix,
    admin: row.is_admin,
    requestCount: Number(row.request_count),
    rateLimitRpm: row.rate_limit_rpm,
    rateLimitRpd: row.rate_limit_rpd,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

/**
 * How long a verified key is trusted without reading the store again. Reading it was one of a
 * search's two database round trips. A revocation in this process takes effect at once; one made
 * by another process (another server on the same PostgreSQL, `kb keys revoke`) within this time.
 */
export const VERIFIED_KEY_TTL_MS = 1_000;
/** Verified keys remembered at most (the oldest go first). */
const VERIFIED_KEY_ENTRIES = 10_000;

export class ApiKeysService {
  /** Verified keys by secret hash; unknown and revoked secrets are never remembered. */
  private readonly verified = new Map<string, { key: AuthenticatedKey; until: number }>();

  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly options: { verifiedKeyTtlMs?: number; now?: () => number } = {},
  ) {}

  async create(input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const key = generateApiKey();
    const row = await this.repository.insert({
      label: input.label,
      keyHash: sha256Hex(key),
      keyPrefix: displayPrefix(key),
      admin: input.admin ?? false,
      rateLimitRpm: input.rateLimitRpm ?? null,
      rateLimitRpd: input.rateLimitRpd ?? null,
    });
    return {
      id: row.id,
      label: row.label,
      key,
      admin: row.is_admin,
      rateLimitRpm: row.rate_limit_rpm,
      rateLimitRpd: row.rate_limit_rpd,
      createdAt: row.created_at.toISOString(),
    };
  }

  async list(): Promise<ApiKeyView[]> {
    return (await this.repository.list()).map(toView);
  }

  async revoke(id: string): Promise<{ revoked: true; id: string }> {
    if (isUuid(id)) {
      const revoked = await this.repository.revoke(id);
      for (const [hash, entry] of this.verified) if (entry.key.id === id) this.verified.delete(hash);
      if (revoked) return { revoked: true, id: revoked.id };
      if (await this.repository.findById(id)) {
        throw new AppError('CONFLICT', `API key ${id} is already revoked`);
      }
    }
    throw new AppError('NOT_FOUND', `No API key with id ${id}`);
  }

  /** The active key a secret belongs to, or null for an unknown, malformed or revoked secret. */
  async authenticate(secret: string): Promise<AuthenticatedKey | null> {
    if (!looksLikeApiKey(secret)) return null;
    const hash = sha256Hex(secret);
    const now = (this.options.now ?? Date.now)();
    const remembered = this.verified.get(hash);
    if (remembered && remembered.until > now) return remembered.key;
    this.verified.delete(hash);
    const row = await this.repository.findByHash(hash);
    if (!row || !digestsEqual(row.key_hash, hash) || row.revoked_at !== null) return null;
    const key = {
      id: row.id,
      label: row.label,
      admin: row.is_admin,
      rateLimitRpm: row.rate_limit_rpm,
      rateLimitRpd: row.rate_limit_rpd,
    };
    const ttl = this.options.verifiedKeyTtlMs ?? VERIFIED_KEY_TTL_MS;
    if (ttl > 0) {
      if (this.verified.size >= VERIFIED_KEY_ENTRIES) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(hash, { key, until: now + ttl });
    }
    return key;
  }
}
