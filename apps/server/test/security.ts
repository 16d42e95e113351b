import { expect, it } from 'vitest';
import type { TestService } from './helpers.ts';

export interface RouteUnderTest {
  method: string;
  path: string;
  json?: unknown;
  level: 'apiKey' | 'admin';
}

/**
 * The shared security cases every protected route must pass: no credentials, a malformed
 * header, an unknown key and a revoked key get 401 with a challenge; a non-admin key gets 403
 * on admin routes.
 */
export function securitySuite(getService: () => TestService, routes: RouteUnderTest[]): void {
  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const call = (init: { key?: string; headers?: Record<string, string> } = {}) =>
      getService().api(route.path, { method: route.method, json: route.json, ...init });

    it(`${name}: 401 without credentials`, async () => {
      const res = await call();
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED', message: expect.any(String) });
    });

    it(`${name}: 401 with a malformed Authorization header`, async () => {
      const res = await call({ headers: { authorization: 'Basic dXNlcjpwYXNz' } });
      expect(res.status).toBe(401);
    });

    it(`${name}: 401 with an unknown key`, async () => {
      const res = await call({ key: `kb_${'A'.repeat(40)}` });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    });

    it(`${name}: 401 with a revoked key`, async () => {
      const service = getService();
      const { id, key } = await service.createKey({ admin: true });
      await service.services.keys.revoke(id);
      const res = await call({ key });
      expect(res.status).toBe(401);
    });

    if (route.level === 'admin') {
      it(`${name}: 403 with a non-admin key`, async () => {
        const { key } = await getService().createKey({ admin: false });
        const res = await call({ key });
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ code: 'FORBIDDEN' });
      });
    }
  }
}
