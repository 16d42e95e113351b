import { SESSION_COOKIE } from '@kb/core';
import type { RequestContext } from '../../context.ts';

export function setSessionCookie(ctx: RequestContext, token: string, maxAgeSeconds: number): void {
  const attributes = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (ctx.secure) attributes.push('Secure');
  ctx.responseHeaders['Set-Cookie'] = attributes.join('; ');
}

export function clearSessionCookie(ctx: RequestContext): void {
  ctx.responseHeaders['Set-Cookie'] = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}
