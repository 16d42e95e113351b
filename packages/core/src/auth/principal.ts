import type { NamespaceScope } from '../namespaces.ts';
import type { AuthenticatedKey, KeyKind } from '../keys/types.ts';

/**
 * Who a service acts for: a key (secret or publishable) or an admin session. Services check a
 * principal's namespace scope where they resolve the namespaces a request reads or writes.
 */
export interface Principal {
  /** The key's id; null for an admin session. */
  keyId: string | null;
  kind: KeyKind | 'session' | 'anonymous';
  admin: boolean;
  /** The namespaces it may use; null: all. */
  namespaces: NamespaceScope;
}

export function keyPrincipal(key: AuthenticatedKey): Principal {
  return { keyId: key.id, kind: key.kind, admin: key.admin, namespaces: key.namespaces };
}

export const SESSION_PRINCIPAL: Principal = { keyId: null, kind: 'session', admin: true, namespaces: null };
