import { API_BASE_PATH, appRouter, type Meta } from '@kb/api';
import { expect, it } from 'vitest';
import type { TestService } from './helpers.ts';

/** A procedure under the shared security cases, called over REST as a client would. */
export interface ProcedureUnderTest {
  /** The procedure's name in the router, e.g. `keys.revoke`. */
  procedure: string;
  /** Its REST path with parameters filled in, for a path with parameters. */
  path?: string;
  /** A valid body, so that only the credentials decide the answer. */
  json?: unknown;
  /** A body that is not JSON (a file upload), with its type: instead of `json`. */
  raw?: { body: string; type: string };
}

type Procedures = Record<string, { _def: { meta?: Meta } }>;

/** The router's procedures that need credentials, with their REST route and level. */
export function protectedProcedures(): Map<string, { method: string; path: string; level: 'apiKey' | 'admin'; publishable: boolean }> {
  const found = new Map<string, { method: string; path: string; level: 'apiKey' | 'admin'; publishable: boolean }>();
  for (const [name, procedure] of Object.entries(appRouter._def.procedures as unknown as Procedures)) {
    const meta = procedure._def.meta;
    // Absent means admin: access is denied by default.
    const level = meta?.auth ?? 'admin';
    if (level === 'public') continue;
    const rest = meta?.openapi ?? meta?.restRoute;
    if (!rest) throw new Error(`${name} has no REST route`);
    found.set(name, { method: rest.method, path: `${API_BASE_PATH}${rest.path}`, level, publishable: meta?.publishable !== undefined });
  }
  return found;
}

/**
 * The shared security cases every protected route must pass: no credentials, a malformed
 * header, an unknown key and a revoked key get 401 with a challenge; a non-admin key gets 403
 * on admin routes. Method, path and level come from the router, so a case tests the route the
 * procedure is published at, at the level it declares. security-coverage.test.ts checks that
 * every protected procedure is under these cases in some route test file.
 */
export function securitySuite(getService: () => TestService, procedures: ProcedureUnderTest[]): void {
  const known = protectedProcedures();
  for (const { procedure, path: given, json, raw } of procedures) {
    const route = known.get(procedure);
    if (!route) throw new Error(`${procedure} is not a procedure that needs credentials`);
    const template = new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}$`);
    const path = given ?? route.path;
    if (!template.test(path)) throw new Error(`${path} is not the route of ${procedure} (${route.path})`);
    const name = `${route.method} ${path}`;
    const call = (init: { key?: string; headers?: Record<string, string> } = {}) =>
      raw
        ? getService().api(path, { method: route.method, body: raw.body, ...init, headers: { 'content-type': raw.type, ...init.headers } })
        : getService().api(path, { method: route.method, json, ...init });

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

    // The key-kind by route matrix: a publishable key, from a page it allows, is refused wherever
    // the procedure is not open to such keys, and never refused for its kind where it is.
    it(`${name}: ${route.publishable ? 'not refused for its kind' : '403'} with a publishable key from a page it allows`, async () => {
      const { key } = await getService().services.keys.create({
        label: 'page',
        kind: 'publishable',
        namespaces: ['user_docs'],
        allowedOrigins: ['https://docs.example.com'],
      });
      const res = await call({ key, headers: { origin: 'https://docs.example.com' } });
      const body = (await res.text()).slice(0, 500);
      if (route.publishable) {
        expect(body, name).not.toMatch(/not open to publishable keys/);
        expect(res.status, body).not.toBe(401);
      } else {
        expect(res.status, body).toBe(403);
        expect(JSON.parse(body)).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('not open to publishable keys') });
      }
    });
  }
}
