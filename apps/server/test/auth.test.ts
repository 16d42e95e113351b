import { appRouter, PUBLIC_PROCEDURES, type Meta } from '@kb/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestService, type TestService, json } from './helpers.ts';

describe('access control', () => {
  it('every procedure declares who may call it, and only allow-listed ones are public', () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { meta?: Meta } }>;
    const publicOnes: string[] = [];
    for (const [path, procedure] of Object.entries(procedures)) {
      const auth = procedure._def.meta?.auth;
      expect(auth, `${path} has no auth level`).toBeDefined();
      if (auth === 'public') publicOnes.push(path);
    }
    expect(publicOnes.sort()).toEqual([...PUBLIC_PROCEDURES].sort());
  });
});

describe('admin sessions', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite');
  });
  afterAll(() => service?.close());

  async function login(password: string) {
    return service.api('/api/v1/auth/login', { method: 'POST', json: { password } });
  }

  it('a password login sets an HttpOnly, SameSite=Strict cookie that grants admin routes', async () => {
    const res = await login(ADMIN_PASSWORD);
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^kb_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const session = cookie.split(';')[0]!;

    const keys = await service.api('/api/v1/keys', { headers: { cookie: session } });
    expect(keys.status).toBe(200);
    const created = await service.api('/api/v1/keys', { method: 'POST', headers: { cookie: session }, json: { label: 'via session' } });
    expect(created.status).toBe(201);

    const out = await service.api('/api/v1/auth/logout', { method: 'POST', headers: { cookie: session } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await service.api('/api/v1/keys', { headers: { cookie: session } })).status).toBe(401);
  });

  it('refuses a wrong password and a forged cookie', async () => {
    const res = await login('not-the-password');
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await service.api('/api/v1/keys', { headers: { cookie: `kb_session=${'A'.repeat(43)}` } })).status).toBe(401);
  });

  it('logout without a session is harmless', async () => {
    const res = await fetch(`${service.url}/api/v1/auth/logout`, { method: 'POST' });
    expect(res.status).toBe(200);
  });

  it('limits password guessing per client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(`guess-${i}`)).status);
    expect(statuses).toContain(429);
    // Even the right password waits out the limit.
    const blocked = await login(ADMIN_PASSWORD);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('admin sessions without KB_ADMIN_PASSWORD', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite', { env: { KB_ADMIN_PASSWORD: '' } });
  });
  afterAll(() => service?.close());

  it('login is unavailable (503) and says how to enable it', async () => {
    const res = await service.api('/api/v1/auth/login', { method: 'POST', json: { password: 'anything-at-all' } });
    expect(res.status).toBe(503);
    expect((await json(res)).message).toContain('KB_ADMIN_PASSWORD');
  });
});
