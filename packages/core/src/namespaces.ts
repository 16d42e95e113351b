import { NAMESPACES } from '@kb/config';
import { AppError } from './errors.ts';

export { NAMESPACES };
export type Namespace = (typeof NAMESPACES)[number];

export function isNamespace(value: string): value is Namespace {
  return (NAMESPACES as readonly string[]).includes(value);
}

/** What a caller may read and write: these namespaces, or every one (null). */
export type NamespaceScope = readonly Namespace[] | null;

/**
 * The namespaces a request reads: those it names (all of them when it names none), each within
 * the caller's scope. Naming one outside the scope is refused (403), naming it and `why` (who set
 * the scope); naming none reads the whole scope.
 */
export function resolveNamespaces(requested: readonly string[] | null | undefined, scope: NamespaceScope, why = 'This key'): Namespace[] {
  if (!requested || requested.length === 0) return scope === null ? [...NAMESPACES] : [...scope];
  const outside = scope === null ? [] : requested.filter((namespace) => !scope.includes(namespace as Namespace));
  if (outside.length > 0) throw outsideScope(outside, scope!, why);
  return [...new Set(requested)] as Namespace[];
}

/** Refuses a write to a namespace outside the caller's scope (403, naming it). */
export function assertInScope(namespace: string, scope: NamespaceScope, why = 'This key'): void {
  if (scope !== null && !scope.includes(namespace as Namespace)) throw outsideScope([namespace], scope, why);
}

function outsideScope(outside: readonly string[], scope: readonly Namespace[], why: string): AppError {
  const names = outside.map((namespace) => `"${namespace}"`).join(', ');
  return new AppError('FORBIDDEN', `${why} may not use the namespace${outside.length === 1 ? '' : 's'} ${names}: it is limited to ${scope.join(', ')}`);
}
