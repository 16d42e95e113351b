import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createKbTrpcClient } from '../src/trpc.ts';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('createKbTrpcClient', () => {
  it('calls the procedures under /trpc with the key, typed by the router', async () => {
    const seen: Array<{ url: string; auth: string | null; body: unknown }> = [];
    server.use(
      http.post('http://kb.test/trpc/*', async ({ request }) => {
        seen.push({ url: request.url, auth: request.headers.get('authorization'), body: await request.json() });
        return HttpResponse.json([{ result: { data: { results: [], count: 0 } } }]);
      }),
    );
    const trpc = createKbTrpcClient({ baseUrl: 'http://kb.test/', apiKey: 'kb_test' });
    const found = await trpc.search.mutate({ query: 'menus', topK: 2 });
    expect(found).toEqual({ results: [], count: 0 });
    expect(seen).toEqual([{ url: 'http://kb.test/trpc/search?batch=1', auth: 'Bearer kb_test', body: { 0: { query: 'menus', topK: 2 } } }]);
    expectTypeOf(found.results).items.toHaveProperty('documentTitle').toEqualTypeOf<string>();
    expectTypeOf(trpc.keys.revoke.mutate).parameter(0).toEqualTypeOf<{ id: string }>();
  });
});
