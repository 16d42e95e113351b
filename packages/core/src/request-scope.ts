import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from './logger.ts';

/** The request being served, as code far from its handler needs it: its id, its logger, and how to fail it. */
export interface RequestScope {
  requestId: string;
  log: Logger;
  /** Answers the request with a 500 unless it has been answered already. */
  fail(): void;
}

/**
 * The scope every HTTP request runs in. Error bodies made before a request's context exists (an
 * adapter's own refusals) still carry its id, and a throw that escapes the request's handling (a
 * timer's or an event emitter's callback it set up) reaches the process's last-resort handlers in
 * this scope, which name the request and answer it.
 */
export const requestScope = new AsyncLocalStorage<RequestScope>();
