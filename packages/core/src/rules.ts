/**
 * The key rules a web page may import (the admin console checks a form with them before it is
 * sent): pure code, no I/O and no Node modules. The server applies the same functions.
 */
export { formatOriginPattern, MAX_ALLOWED_ORIGINS, parseOriginPattern, type OriginPattern } from './keys/origins.ts';
export { PUBLISHABLE_DEFAULTS, type PublishableLimits } from './keys/types.ts';
