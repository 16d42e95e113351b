import { createKbClient, KbError, KbNetworkError } from '@kb/sdk';

/** Fired when the service answers 401 to a signed-in call: the session ended (expired, signed out elsewhere). */
export const SESSION_ENDED = 'kb:session-ended';

/**
 * The console's one client: same origin, no API key. The browser sends the HttpOnly session
 * cookie itself (fetch's default `same-origin` credentials); a 401 anywhere but at sign-in
 * means the session is gone, and the app goes back to the sign-in form.
 */
export const kb = createKbClient({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (response.status === 401 && !url.endsWith('/auth/login')) window.dispatchEvent(new Event(SESSION_ENDED));
    return response;
  },
});

/** Whether the server has an admin password (it writes this into the page). */
export function loginConfigured(): 'enabled' | 'disabled' | 'unknown' {
  const value = document.querySelector('meta[name="kb-admin-login"]')?.getAttribute('content');
  return value === 'enabled' || value === 'disabled' ? value : 'unknown';
}

/** What to show for a failed call: the service's own message, with its code. */
export function describeError(error: unknown): string {
  if (error instanceof KbError) {
    const issues = error.issues.map((issue) => `${issue.path?.join('.') || 'input'}: ${issue.message}`);
    const detail = issues.length > 0 && !issues.every((issue) => error.message.includes(issue)) ? ` (${issues.slice(0, 3).join('; ')})` : '';
    return `${error.message}${detail} [${error.status} ${error.code}]`;
  }
  if (error instanceof KbNetworkError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export const NAMESPACES = ['user_docs', 'tech_docs', 'api_endpoints', 'wiki'] as const;
export type Namespace = (typeof NAMESPACES)[number];

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
