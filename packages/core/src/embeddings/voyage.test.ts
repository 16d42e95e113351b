import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BATCH_TOKEN_HEADROOM,
  EmbeddingError,
  MAX_TEXTS_PER_REQUEST,
  VOYAGE_MODELS,
  VoyageEmbedder,
  type VoyageEmbedderOptions,
  estimateTokens,
  parseRetryAfter,
  planBatches,
} from './voyage.ts';

const BASE = 'https://voyage.test/v1';
const API_KEY = 'pa-test-secret-key-1234567890';

interface SeenRequest {
  url: string;
  authorization: string | null;
  body: {
    input: string[];
    model: string;
    input_type?: string;
    output_dimension?: number;
    truncation?: boolean;
  };
}

let seen: SeenRequest[] = [];

/**
 * A fake vector that encodes its text: texts are "doc-<n>..." and the vector is [n + 1, 1, 0, ...],
 * deliberately not unit length so normalisation shows.
 */
function fakeVector(text: string, dimension: number): number[] {
  const n = Number(/^doc-(\d+)/.exec(text)?.[1] ?? 0);
  const vector = new Array<number>(dimension).fill(0);
  vector[0] = n + 1;
  vector[1] = 1;
  return vector;
}

/** Vector for the n-th "doc-n" text, read back: v[0] / v[1] - 1. */
function decode(vector: number[]): number {
  return Math.round((vector[0] ?? 0) / (vector[1] ?? 1)) - 1;
}

async function record(request: Request): Promise<SeenRequest['body']> {
  const body = (await request.json()) as SeenRequest['body'];
  seen.push({ url: request.url, authorization: request.headers.get('authorization'), body });
  return body;
}

/** Answers like Voyage, with the data list reversed so only `index` gives the order. */
function embeddingsResponse(body: SeenRequest['body']) {
  const dimension = body.output_dimension ?? VOYAGE_MODELS[body.model]?.defaultDimension ?? 1024;
  const data = body.input.map((text, index) => ({ object: 'embedding', embedding: fakeVector(text, dimension), index }));
  return HttpResponse.json({
    object: 'list',
    data: data.reverse(),
    model: body.model,
    usage: { total_tokens: body.input.length },
  });
}

const okHandler = http.post(`${BASE}/embeddings`, async ({ request }) => embeddingsResponse(await record(request)));

const server = setupServer(okHandler);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  seen = [];
});
afterAll(() => server.close());

function embedder(options: Partial<VoyageEmbedderOptions> = {}): VoyageEmbedder {
  return new VoyageEmbedder({
    apiKey: API_KEY,
    baseUrl: BASE,
    fetch: (input, init) => globalThis.fetch(input, init),
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 5,
    ...options,
  });
}

const docs = (count: number, pad = '') => Array.from({ length: count }, (_, i) => `doc-${i} ${pad}`);

function norm(vector: number[]): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

describe('VoyageEmbedder: requests', () => {
  it('sends the model, input_type, truncation and bearer key to the configured base URL', async () => {
    const e = embedder();
    expect(e.model).toBe('voyage-3.5');
    expect(e.dimension).toBe(1024);

    const vectors = await e.embed(['doc-0 hello', 'doc-1 world'], 'document');

    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.url).toBe(`${BASE}/embeddings`);
    expect(request?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request?.body).toMatchObject({ model: 'voyage-3.5', input_type: 'document', truncation: true });
    expect(request?.body).not.toHaveProperty('output_dimension');
    expect(vectors).toHaveLength(2);
    expect(vectors.map(decode)).toEqual([0, 1]);
  });

  it("sends input_type 'query' for searches", async () => {
    await embedder().embed(['doc-0 what is x?'], 'query');
    expect(seen[0]?.body.input_type).toBe('query');
  });

  it('honours a base URL with a path prefix', async () => {
    const proxy = 'https://proxy.internal/voyage/v1';
    server.use(http.post(`${proxy}/embeddings`, async ({ request }) => embeddingsResponse(await record(request))));
    await embedder({ baseUrl: proxy }).embed(['doc-0'], 'document');
    expect(seen.map((r) => r.url)).toEqual([`${proxy}/embeddings`]);
  });

  it('sends output_dimension when a dimension is configured', async () => {
    const e = embedder({ dimension: 256 });
    expect(e.dimension).toBe(256);
    const [vector] = await e.embed(['doc-0'], 'document');
    expect(seen[0]?.body.output_dimension).toBe(256);
    expect(vector).toHaveLength(256);
  });

  it('returns unit-length vectors', async () => {
    const vectors = await embedder().embed(docs(5), 'document');
    for (const vector of vectors) expect(norm(vector)).toBeCloseTo(1, 12);
    // [n + 1, 1] normalised
    expect(vectors[2]?.[0]).toBeCloseTo(3 / Math.sqrt(10), 12);
  });

  it('makes no request for an empty list', async () => {
    expect(await embedder().embed([], 'document')).toEqual([]);
    expect(seen).toHaveLength(0);
  });
});

describe('VoyageEmbedder: batching', () => {
  it(`keeps requests at ${MAX_TEXTS_PER_REQUEST} texts or fewer and reassembles results in order`, async () => {
    const texts = docs(2500);
    const vectors = await embedder({ dimension: 256 }).embed(texts, 'document');

    const sizes = seen.map((r) => r.body.input.length);
    expect(sizes.every((n) => n <= MAX_TEXTS_PER_REQUEST)).toBe(true);
    expect([...sizes].sort((a, b) => b - a)).toEqual([1000, 1000, 500]);
    expect(vectors).toHaveLength(2500);
    expect(vectors.map(decode)).toEqual(texts.map((_, i) => i));
  });

  it("keeps each request under the model's token cap, by estimate", async () => {
    const model = 'voyage-3-large';
    const cap = VOYAGE_MODELS[model]?.batchTokens ?? 0;
    expect(cap).toBe(120_000);
    // ~12k estimated tokens each: about eight fit in one request.
    const texts = docs(30, 'x'.repeat(36_000));
    const vectors = await embedder({ model }).embed(texts, 'document');

    expect(seen.length).toBeGreaterThanOrEqual(4);
    let total = 0;
    for (const request of seen) {
      const tokens = request.body.input.reduce((sum, text) => sum + estimateTokens(text), 0);
      expect(tokens).toBeLessThanOrEqual(cap * BATCH_TOKEN_HEADROOM);
      // Character-level upper bound too: at most one token per character.
      expect(request.body.input.reduce((sum, text) => sum + text.length, 0)).toBeLessThanOrEqual(cap * 3);
      total += request.body.input.length;
    }
    expect(total).toBe(30);
    expect(vectors.map(decode)).toEqual(texts.map((_, i) => i));
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        const body = await record(request);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
        return embeddingsResponse(body);
      }),
    );
    const texts = docs(10, 'y'.repeat(150_000)); // ~50k tokens each: two per request
    const vectors = await embedder({ model: 'voyage-3-large', concurrency: 2 }).embed(texts, 'document');
    expect(seen.length).toBeGreaterThanOrEqual(5);
    expect(peak).toBe(2);
    expect(vectors.map(decode)).toEqual(texts.map((_, i) => i));
  });

  it('planBatches splits on the text count and the token budget, in order', () => {
    expect(planBatches(docs(5), 2, 1_000_000)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 4 },
      { start: 4, end: 5 },
    ]);
    const big = 'z'.repeat(3000); // 1000 + overhead tokens
    const each = estimateTokens(big);
    expect(planBatches([big, big, big], 1000, each * 2)).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 3 },
    ]);
    // A single text above the budget still goes, alone.
    expect(planBatches(['a', big, 'b'], 1000, each - 1)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
      { start: 2, end: 3 },
    ]);
  });

  it('estimateTokens counts non-ASCII characters as a token each', () => {
    expect(estimateTokens('abc'.repeat(100))).toBe(estimateTokens('') + 100);
    expect(estimateTokens('日本語'.repeat(100))).toBe(estimateTokens('') + 300);
  });
});

describe('VoyageEmbedder: retries', () => {
  it('retries a 429 (Retry-After: 0) and then succeeds', async () => {
    let calls = 0;
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        const body = await record(request);
        calls++;
        if (calls === 1) return HttpResponse.json({ detail: 'rate limited' }, { status: 429, headers: { 'Retry-After': '0' } });
        return embeddingsResponse(body);
      }),
    );
    const warn = vi.fn();
    const delays: number[] = [];
    const vectors = await embedder({
      logger: { warn },
      sleep: async (ms) => {
        delays.push(ms);
      },
    }).embed(docs(3), 'document');

    expect(calls).toBe(2);
    expect(delays).toEqual([0]);
    expect(vectors.map(decode)).toEqual([0, 1, 2]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatchObject({ status: 429, attempt: 1 });
    expect(JSON.stringify(warn.mock.calls)).not.toContain(API_KEY);
  });

  it('honours a Retry-After in seconds, capped at retryMaxDelayMs', async () => {
    let calls = 0;
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        const body = await record(request);
        calls++;
        if (calls === 1) return new HttpResponse(null, { status: 429, headers: { 'Retry-After': '2' } });
        if (calls === 2) return new HttpResponse(null, { status: 429, headers: { 'Retry-After': '3600' } });
        return embeddingsResponse(body);
      }),
    );
    const delays: number[] = [];
    await embedder({
      retryMaxDelayMs: 10_000,
      sleep: async (ms) => {
        delays.push(ms);
      },
    }).embed(docs(1), 'document');
    expect(delays).toEqual([2000, 10_000]);
  });

  it('retries a 500 and then succeeds', async () => {
    let calls = 0;
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        const body = await record(request);
        calls++;
        if (calls === 1) return HttpResponse.json({ detail: 'internal error' }, { status: 500 });
        return embeddingsResponse(body);
      }),
    );
    const vectors = await embedder().embed(docs(2), 'query');
    expect(calls).toBe(2);
    expect(vectors.map(decode)).toEqual([0, 1]);
  });

  it('retries a network error and then succeeds', async () => {
    let calls = 0;
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        const body = await record(request);
        calls++;
        if (calls === 1) return HttpResponse.error();
        return embeddingsResponse(body);
      }),
    );
    const vectors = await embedder().embed(docs(2), 'document');
    expect(calls).toBe(2);
    expect(vectors).toHaveLength(2);
  });

  it('backs off exponentially, with jitter, and gives up after maxRetries', async () => {
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ detail: 'unavailable' }, { status: 503 });
      }),
    );
    const delays: number[] = [];
    const error = await embedder({
      maxRetries: 3,
      retryBaseDelayMs: 100,
      retryMaxDelayMs: 10_000,
      sleep: async (ms) => {
        delays.push(ms);
      },
    })
      .embed(docs(1), 'document')
      .catch((e: unknown) => e);

    expect(seen).toHaveLength(4);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect((error as Error).message).toMatch(/503 after 4 attempts: unavailable/);
    expect(delays).toHaveLength(3);
    delays.forEach((ms, attempt) => {
      const ceiling = 100 * 2 ** attempt;
      expect(ms).toBeGreaterThanOrEqual(ceiling / 2);
      expect(ms).toBeLessThanOrEqual(ceiling);
    });
  });

  it('fails at once on a 401, without the key in the error', async () => {
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        await record(request);
        // Even if the server echoes the key, the error must not carry it.
        return HttpResponse.json({ detail: `Provided API key ${API_KEY} is invalid.` }, { status: 401 });
      }),
    );
    const warn = vi.fn();
    const error = await embedder({ logger: { warn } })
      .embed(docs(1), 'document')
      .catch((e: unknown) => e);

    expect(seen).toHaveLength(1);
    expect(warn).not.toHaveBeenCalled();
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error).toMatchObject({ status: 401, retryable: false, name: 'EmbeddingError' });
    const message = (error as Error).message;
    expect(message).toContain('401');
    expect(message).toMatch(/API key/);
    expect(message).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(String((error as Error).stack)).not.toContain(API_KEY);
  });

  it('fails at once on a 400 with the API detail', async () => {
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ detail: 'Value error, output_dimension is not supported' }, { status: 400 });
      }),
    );
    const error = await embedder()
      .embed(docs(1), 'document')
      .catch((e: unknown) => e);
    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ status: 400, retryable: false });
    expect((error as Error).message).toContain('output_dimension is not supported');
  });

  it('stops the other batches when one fails for good', async () => {
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        await record(request);
        return HttpResponse.json({ detail: 'bad request' }, { status: 400 });
      }),
    );
    const error = await embedder({ concurrency: 1 })
      .embed(docs(3000), 'document')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400 });
    expect(seen).toHaveLength(1);
  });
});

describe('VoyageEmbedder: response checks', () => {
  it('rejects vectors whose length differs from the configured dimension', async () => {
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        const body = await record(request);
        return embeddingsResponse({ ...body, output_dimension: 1024 });
      }),
    );
    const error = await embedder({ dimension: 512 })
      .embed(docs(2), 'document')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingError);
    expect(error).toMatchObject({ retryable: false });
    expect((error as Error).message).toMatch(/returned 1024-dimensional vectors.*dimension 512/);
  });

  it('rejects a response with a missing embedding', async () => {
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        const body = await record(request);
        return HttpResponse.json({
          data: body.input.slice(1).map((text, i) => ({ embedding: fakeVector(text, 1024), index: i + 1 })),
        });
      }),
    );
    await expect(embedder().embed(docs(2), 'document')).rejects.toThrow(/1 embeddings for 2 texts/);
  });
});

describe('VoyageEmbedder: abort', () => {
  it('rejects at once, without a request, when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder().embed(docs(1), 'document', controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(0);
  });

  it('aborts a request in flight', async () => {
    const controller = new AbortController();
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        await record(request);
        controller.abort();
        await new Promise(() => {}); // never answers: only the abort ends the call
        return new HttpResponse(null, { status: 500 });
      }),
    );
    const started = Date.now();
    await expect(embedder().embed(docs(1), 'document', controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
    // A wide bound for a busy machine.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(seen).toHaveLength(1);
  });

  it('aborts while waiting to retry', async () => {
    const controller = new AbortController();
    server.use(
      http.post(`${BASE}/embeddings`, async ({ request }) => {
        await record(request);
        setTimeout(() => controller.abort(), 10);
        return new HttpResponse(null, { status: 429, headers: { 'Retry-After': '60' } });
      }),
    );
    const started = Date.now();
    const error = await embedder({ retryMaxDelayMs: 60_000 })
      .embed(docs(1), 'document', controller.signal)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(seen).toHaveLength(1);
  });
});

describe('VoyageEmbedder: configuration', () => {
  it('uses the model table for default dimensions', () => {
    expect(embedder({ model: 'voyage-3-large' }).dimension).toBe(1024);
    expect(embedder({ model: 'voyage-3.5-lite' }).dimension).toBe(1024);
    expect(embedder({ model: 'voyage-3-lite' }).dimension).toBe(512);
  });

  it('rejects bad configuration', () => {
    expect(() => embedder({ apiKey: '' })).toThrow(EmbeddingError);
    expect(() => embedder({ dimension: 300 })).toThrow(/supports dimensions 256, 512, 1024, 2048/);
    expect(() => embedder({ model: 'voyage-law-2', dimension: 512 })).toThrow(/only returns 1024/);
    expect(() => embedder({ model: 'voyage-future-9' })).toThrow(/set dimension/);
    expect(embedder({ model: 'voyage-future-9', dimension: 768 }).dimension).toBe(768);
    expect(() => embedder({ model: 'voyage-4-nano' })).toThrow(/locally/);
    expect(() => embedder({ maxRetries: -1 })).toThrow(/maxRetries/);
  });

  it('parseRetryAfter reads seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
