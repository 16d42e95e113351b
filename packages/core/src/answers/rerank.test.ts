import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { localRerank, VoyageReranker } from './rerank.ts';

const BASE = 'https://voyage.test/v1';
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const candidates = [
  { heading: 'Menus > Overview', text: 'To create a menu, define its entries.', prior: 1 },
  { heading: 'Multilingual > Menus', text: 'Localize menu entries per language.', prior: 0.8 },
];
const terms = { weights: new Map([['menu', 1], ['creat', 2]]) };

describe('rerankers', () => {
  it('Voyage: sends the query and the sections to rerank-2.5 at VOYAGE_BASE_URL and reads the scores', async () => {
    let body: Record<string, unknown> = {};
    server.use(
      http.post(`${BASE}/rerank`, async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ object: 'list', data: [{ index: 1, relevance_score: 0.9 }, { index: 0, relevance_score: 0.2 }], model: 'rerank-2.5', usage: { total_tokens: 10 } });
      }),
    );
    const reranker = new VoyageReranker({ apiKey: 'pa-key', baseUrl: BASE, model: 'rerank-2.5' });
    expect(await reranker.rerank('translate menus', candidates, terms)).toEqual([0.2, 0.9]);
    expect(body).toMatchObject({ query: 'translate menus', model: 'rerank-2.5', documents: ['Menus > Overview\n\nTo create a menu, define its entries.', 'Multilingual > Menus\n\nLocalize menu entries per language.'] });
  });

  it('Voyage: falls back to the local reranker when the call fails', async () => {
    server.use(http.post(`${BASE}/rerank`, () => HttpResponse.json({ detail: 'down' }, { status: 503 })));
    const reranker = new VoyageReranker({ apiKey: 'pa-key', baseUrl: BASE, model: 'rerank-2.5', logger: createLogger({ level: 'silent' }) });
    expect(await reranker.rerank('create a menu', candidates, terms)).toEqual(localRerank(candidates, terms));
  });

  it('local: weighs the section text, its heading trail and the first retrieval', () => {
    const [overview, multilingual] = localRerank(candidates, terms);
    expect(overview).toBeGreaterThan(multilingual!);
    const flipped = localRerank([{ ...candidates[0]!, prior: 0 }, { ...candidates[1]!, heading: 'Create menus', prior: 1 }], terms);
    expect(flipped[1]).toBeGreaterThan(flipped[0]!);
  });
});
