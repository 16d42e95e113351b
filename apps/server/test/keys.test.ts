import { testStoreKinds } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService, json } from './helpers.ts';
import { securitySuite } from './security.ts';

const kinds = await testStoreKinds();

describe.each(kinds)('API keys over HTTP (%s)', (kind) => {
  let service: TestService;
  let admin: string;
  beforeAll(async () => {
    service = await startTestService(kind);
    admin = (await service.createKey({ admin: true, label: 'root' })).key;
  });
  afterAll(() => service?.close());

  it('creates a key: 201, the secret once, in the documented format', async () => {
    const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: 'reader', rateLimitRpm: 60, rateLimitRpd: 1000 } });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body).toMatchObject({ id: expect.any(String), label: 'reader', admin: false, rateLimitRpm: 60, rateLimitRpd: 1000 });
    expect(body.key).toMatch(/^kb_[0-9A-Za-z]{40}$/);
    expect(new Date(body.createdAt).toISOString()).toBe(body.createdAt);

    // The new key works.
    const listWithNew = await service.api('/api/v1/keys', { key: body.key });
    expect(listWithNew.status).toBe(403); // not admin, but authenticated
  });

  it('creates admin keys that can administer', async () => {
    const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: 'ops', admin: true } });
    expect(res.status).toBe(201);
    const { key } = await json(res);
    expect((await service.api('/api/v1/keys', { key })).status).toBe(200);
  });

  it('lists keys without secrets or hashes', async () => {
    const created = await json(await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: 'listed' } }));
    const res = await service.api('/api/v1/keys', { key: admin });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain(created.key);
    const { keys } = JSON.parse(text);
    const listed = keys.find((k: { id: string }) => k.id === created.id);
    expect(listed).toEqual({
      id: created.id,
      label: 'listed',
      kind: 'secret',
      keyPrefix: created.key.slice(0, 9),
      admin: false,
      namespaces: null,
      requestCount: 0,
      rateLimitRpm: null,
      rateLimitRpd: null,
      createdAt: created.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    });
    for (const key of keys) {
      expect(Object.keys(key)).not.toContain('key');
      expect(JSON.stringify(key)).not.toMatch(/hash/i);
    }
  });

  it('revokes a key, then answers 409; the revoked key gets 401', async () => {
    const created = await json(await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: 'doomed' } }));
    const first = await service.api(`/api/v1/keys/${created.id}`, { method: 'DELETE', key: admin });
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ revoked: true, id: created.id });
    const second = await service.api(`/api/v1/keys/${created.id}`, { method: 'DELETE', key: admin });
    expect(second.status).toBe(409);
    expect(await json(second)).toMatchObject({ code: 'CONFLICT' });
    expect((await service.api('/api/v1/keys', { key: created.key })).status).toBe(401);
    const { keys } = await json(await service.api('/api/v1/keys', { key: admin }));
    expect(keys.find((k: { id: string }) => k.id === created.id).revokedAt).toEqual(expect.any(String));
  });

  it('reads percent-encoded letters, digits and "-" in a path id as themselves', async () => {
    const created = await json(await service.api('/api/v1/keys', { method: 'POST', key: admin, json: { label: 'encoded' } }));
    const encoded = [...created.id].map((c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
    const res = await service.api(`/api/v1/keys/${encoded}`, { method: 'DELETE', key: admin });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ revoked: true, id: created.id });
    // An encoded "/" is not a path separator: still one (unknown) id.
    expect((await service.api('/api/v1/keys/a%2Fb', { method: 'DELETE', key: admin })).status).toBe(404);
  });

  it('answers 404 for an unknown id, whether or not it looks like an id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-key-id', "x'; drop table api_keys; --"]) {
      const res = await service.api(`/api/v1/keys/${encodeURIComponent(id)}`, { method: 'DELETE', key: admin });
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('rejects bad input with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'label'],
      [{ label: '' }, 'label'],
      [{ label: 5 }, 'label'],
      [{ label: 'x', rateLimitRpm: -1 }, 'rateLimitRpm'],
      [{ label: 'x', rateLimitRpd: 1.5 }, 'rateLimitRpd'],
      [{ label: 'x', admin: 'yes' }, 'admin'],
    ];
    for (const [input, field] of cases) {
      const res = await service.api('/api/v1/keys', { method: 'POST', key: admin, json: input });
      expect(res.status, JSON.stringify(input)).toBe(400);
      const body = await json(res);
      expect(body.code).toBe('BAD_REQUEST');
      expect(body.issues.map((i: { path: string[] }) => i.path.join('.'))).toContain(field);
    }
  });

  describe('security', () => {
    securitySuite(() => service, [
      { procedure: 'keys.list' },
      { procedure: 'keys.create', json: { label: 'x' } },
      { procedure: 'keys.update', path: '/api/v1/keys/00000000-0000-4000-8000-000000000000', json: { label: 'y' } },
      { procedure: 'keys.revoke', path: '/api/v1/keys/00000000-0000-4000-8000-000000000000' },
    ]);
  });
});
