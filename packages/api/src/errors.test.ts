import { AppError } from '@kb/core';
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from './context.ts';
import { responseMeta } from './response-meta.ts';
import { APP_ERROR_STATUS, toTRPCError } from './trpc.ts';
import { parseCookies } from './context.ts';

describe('error mapping', () => {
  it('maps every AppError code to a tRPC error of the same code and the status of the one map', () => {
    for (const [code, status] of Object.entries(APP_ERROR_STATUS)) {
      const error = toTRPCError(new AppError(code as keyof typeof APP_ERROR_STATUS, 'x'));
      expect(error.code).toBe(code);
      expect(responseMeta({ errors: [error] }).status).toBe(status);
    }
  });

  it('carries the error headers and the request headers', () => {
    const ctx = { responseHeaders: { 'RateLimit-Limit': '5' } } as unknown as RequestContext;
    const error = toTRPCError(new AppError('TOO_MANY_REQUESTS', 'slow down', { headers: { 'Retry-After': '7' } }));
    expect(responseMeta({ ctx, errors: [error] })).toEqual({
      status: 429,
      headers: { 'RateLimit-Limit': '5', 'Retry-After': '7', 'Content-Type': 'application/json' },
    });
  });

  it('uses the success status a procedure asked for', () => {
    const ctx = { responseHeaders: {}, responseStatus: 201 } as unknown as RequestContext;
    expect(responseMeta({ ctx, errors: [] }).status).toBe(201);
    expect(responseMeta({ ctx: { responseHeaders: {} } as unknown as RequestContext, errors: [] }).status).toBe(200);
  });

  it('leaves tRPC-native errors (input validation, parse errors) to their own status', () => {
    expect(responseMeta({ errors: [new TRPCError({ code: 'BAD_REQUEST' })] }).status).toBe(400);
    expect(responseMeta({ errors: [new TRPCError({ code: 'PARSE_ERROR' })] }).status).toBeUndefined();
  });
});

describe('parseCookies', () => {
  it('reads name=value pairs, first one wins, values decoded', () => {
    const cookies = parseCookies('a=1; kb_session=abc%2Ddef; a=2; broken; =x');
    expect(cookies.get('a')).toBe('1');
    expect(cookies.get('kb_session')).toBe('abc-def');
    expect(cookies.size).toBe(2);
  });
});
