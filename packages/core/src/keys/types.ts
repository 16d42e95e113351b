import type { Namespace } from '../namespaces.ts';
import type { OriginPattern } from './origins.ts';

/**
 * Secret keys are for servers (they may be admin); publishable keys are for web pages: shown
 * whole, bound to the origins that may use them, the namespaces they may read, and budgets per
 * visitor and per day.
 */
export type KeyKind = 'secret' | 'publishable';

/** Per-visitor and per-key budgets of a publishable key; null is unlimited, 0 blocks. */
export interface PublishableLimits {
  /** Questions (chat and search) one visitor (client address) may ask in any 60 seconds. */
  visitorRateLimitRpm: number | null;
  /** ... and in any 24 hours. */
  visitorRateLimitRpd: number | null;
  /** Answers the key may give in any 24 hours, across all its visitors. */
  dailyAnswerLimit: number | null;
}

/** A publishable key's defaults (docs/keys-and-limits.md). */
export const PUBLISHABLE_DEFAULTS: PublishableLimits = { visitorRateLimitRpm: 10, visitorRateLimitRpd: 100, dailyAnswerLimit: 1_000 };

/** An API key as callers see it: never a secret key's secret. */
export interface ApiKeyView {
  id: string;
  label: string;
  kind: KeyKind;
  keyPrefix: string;
  admin: boolean;
  /** The namespaces it may use; null: all. */
  namespaces: Namespace[] | null;
  requestCount: number;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** Publishable keys only: the key itself (it is no secret), its origins and budgets. */
  key?: string;
  allowedOrigins?: string[];
  visitorRateLimitRpm?: number | null;
  visitorRateLimitRpd?: number | null;
  dailyAnswerLimit?: number | null;
}

/** The creation response: the only time a secret key's secret is shown. */
export interface CreatedApiKey extends Omit<ApiKeyView, 'keyPrefix' | 'requestCount' | 'lastUsedAt' | 'revokedAt'> {
  key: string;
}

export interface CreateApiKeyInput {
  label: string;
  kind?: KeyKind;
  admin?: boolean;
  namespaces?: readonly Namespace[] | null;
  rateLimitRpm?: number | null;
  rateLimitRpd?: number | null;
  allowedOrigins?: readonly string[];
  visitorRateLimitRpm?: number | null;
  visitorRateLimitRpd?: number | null;
  dailyAnswerLimit?: number | null;
}

/** What `PATCH /keys/{id}` may change; absent fields stay as they are. */
export type UpdateApiKeyInput = Partial<Omit<CreateApiKeyInput, 'kind' | 'admin'>>;

/** An authenticated API key, as the request pipeline carries it. */
export interface AuthenticatedKey extends PublishableLimits {
  id: string;
  label: string;
  kind: KeyKind;
  admin: boolean;
  namespaces: Namespace[] | null;
  rateLimitRpm: number | null;
  rateLimitRpd: number | null;
  /** Publishable keys: where they may be used from (empty for a secret key). */
  allowedOrigins: OriginPattern[];
}
