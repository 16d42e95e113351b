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

export class ApiKeysService {
  constructor(private readonly repository: ApiKeysRepository) {}

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
    const row = await this.repository.findByHash(hash);
    if (!row || !digestsEqual(row.key_hash, hash) || row.revoked_at !== null) return null;
    return {
      id: row.id,
      label: row.label,
      admin: row.is_admin,
      rateLimitRpm: row.rate_limit_rpm,
      rateLimitRpd: row.rate_limit_rpd,
    };
  }
}
