export { classifyAddress, parseHostAddress } from './address.ts';
export type { AddressClass } from './address.ts';
export { describeFetchFailure, FetchFailedError, FetchRefusedError, InvalidUrlError } from './errors.ts';
export type { FetchFailedReason, FetchLimits, FetchRefusedReason } from './errors.ts';
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_REDIRECTS,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  guardedFetch,
} from './guarded-fetch.ts';
export type { FetchedPage, GuardedFetchOptions, ResolvedAddress } from './guarded-fetch.ts';
