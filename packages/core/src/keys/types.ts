/** The fields authentication needs, looked up by the key's hash. */
export interface ApiKeyRow {
  id: string;
  label: string;
  key_hash: string;
  is_admin: boolean;
  rate_limit_rpm: number | null;
  rate_limit_rpd: number | null;
  revoked_at: Date | null;
}

/** An API key as callers see it: never the secret. */
export interface ApiKeyView {
  id: string;
  label: string;
  keyPrefix: string;
  admin: boolean;
  requestCount: number;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The creation response: the only time the secret is shown. */
export interface CreatedApiKey {
  id: string;
  label: string;
  key: string;
  admin: boolean;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
  createdAt: string;
}

export interface CreateApiKeyInput {
  label: string;
  admin?: boolean;
  rateLimitRpm?: number | null;
  rateLimitRpd?: number | null;
}

/** An authenticated API key, as the request pipeline carries it. */
export interface AuthenticatedKey {
  id: string;
  label: string;
  admin: boolean;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
}
