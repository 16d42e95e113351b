import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './index.ts';

describe('loadConfig', () => {
  it('defaults to the embedded mode with no variables set', () => {
    const config = loadConfig({});
    expect(config.server.port).toBe(3000);
    expect(config.storage).toEqual({ kind: 'pglite', dataDir: './.kb-data', cacheMb: 32, minFreeMb: 64 });
    expect(config.redis).toBeNull();
    expect(config.embedding.model).toBe('voyage-3.5');
    expect(config.security.allowPrivateUrls).toBe(false);
    expect(config.limits.maxBodyBytes).toBe(10 * 1024 * 1024);
  });

  it('reads the free space the embedded store keeps: 0 turns the check off', () => {
    expect(loadConfig({ KB_EMBEDDED_MIN_FREE_MB: '0' }).storage).toMatchObject({ kind: 'pglite', minFreeMb: 0 });
    expect(loadConfig({ KB_EMBEDDED_MIN_FREE_MB: '512' }).storage).toMatchObject({ minFreeMb: 512 });
    expect(() => loadConfig({ KB_EMBEDDED_MIN_FREE_MB: '-1' })).toThrow(/KB_EMBEDDED_MIN_FREE_MB/);
    expect(() => loadConfig({ KB_EMBEDDED_MIN_FREE_MB: 'lots' })).toThrow(/KB_EMBEDDED_MIN_FREE_MB/);
  });

  it('reads the public URL as the own origin: unset by default, an http(s) URL otherwise', () => {
    expect(loadConfig({}).server.publicOrigin).toBeUndefined();
    expect(loadConfig({ KB_PUBLIC_URL: 'https://KB.example.com:443/help/' }).server.publicOrigin).toBe('https://kb.example.com');
    expect(loadConfig({ KB_PUBLIC_URL: 'http://10.0.0.5:8080' }).server.publicOrigin).toBe('http://10.0.0.5:8080');
    expect(() => loadConfig({ KB_PUBLIC_URL: 'kb.example.com' })).toThrow(/KB_PUBLIC_URL/);
    expect(() => loadConfig({ KB_PUBLIC_URL: 'ftp://kb.example.com' })).toThrow(/KB_PUBLIC_URL/);
  });

  it('selects the services mode from DATABASE_URL and REDIS_URL', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db:5432/kb',
      REDIS_URL: 'redis://cache:6379',
      KB_ALLOW_PRIVATE_URLS: 'true',
    });
    expect(config.storage).toMatchObject({ kind: 'postgres', databaseUrl: 'postgres://u@db:5432/kb' });
    expect(config.redis).toEqual({ url: 'redis://cache:6379' });
    expect(config.security.allowPrivateUrls).toBe(true);
  });

  it('reads replica URLs for PostgreSQL, and refuses them without a primary', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/kb' }).storage).toMatchObject({ replicaUrls: [], replicaMaxLagMs: 10_000 });
    const set = loadConfig({
      DATABASE_URL: 'postgres://u@db:5432/kb',
      DATABASE_REPLICA_URLS: ' postgres://u@r1:5432/kb, postgresql://u@r2/kb ,',
      KB_REPLICA_MAX_LAG_MS: '2500',
    });
    expect(set.storage).toMatchObject({ replicaUrls: ['postgres://u@r1:5432/kb', 'postgresql://u@r2/kb'], replicaMaxLagMs: 2500 });
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://u@r1/kb' })).toThrow(/DATABASE_REPLICA_URLS: needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db/kb', DATABASE_REPLICA_URLS: 'postgres://u@r1/kb,mysql://r2' })).toThrow(
      /DATABASE_REPLICA_URLS: must be a comma-separated list of PostgreSQL URLs/,
    );
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ DATABASE_URL: '', PORT: ' ', VOYAGE_API_KEY: '' });
    expect(config.storage.kind).toBe('pglite');
    expect(config.server.port).toBe(3000);
    expect(config.embedding.voyageApiKey).toBeUndefined();
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', KB_ALLOW_PRIVATE_URLS: 'maybe', KB_ADMIN_PASSWORD: 'short' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).problems.map((p) => p.variable).sort();
    expect(variables).toEqual(['DATABASE_URL', 'KB_ADMIN_PASSWORD', 'KB_ALLOW_PRIVATE_URLS', 'PORT']);
    expect((error as ConfigError).message).toContain('PORT:');
  });

  it('accepts embedding dimensions pgvector can index, up to 4,000', () => {
    expect(loadConfig({ KB_EMBEDDING_DIM: '2048' }).embedding.dimension).toBe(2048);
    expect(loadConfig({ KB_EMBEDDING_DIM: '4000' }).embedding.dimension).toBe(4000);
    expect(() => loadConfig({ KB_EMBEDDING_DIM: '4001' })).toThrow(/KB_EMBEDDING_DIM: must be at most 4000/);
    expect(() => loadConfig({ KB_EMBEDDING_DIM: '10' })).toThrow(/KB_EMBEDDING_DIM: must be at least 16 for the built-in embedder/);
    expect(loadConfig({ KB_EMBEDDING_DIM: '10', VOYAGE_API_KEY: 'pa-test' }).embedding.dimension).toBe(10);
  });

  it('reads the answer settings, with a current model by default', () => {
    const defaults = loadConfig({});
    expect(defaults.llm).toMatchObject({ model: 'claude-sonnet-5-5', maxTokens: 1024 });
    expect(defaults.answers).toEqual({ contextTokens: 3000, historyTokens: 2000, rerankModel: 'rerank-2.5' });
    const set = loadConfig({ KB_ANSWER_MAX_TOKENS: '4096', KB_CHAT_CONTEXT_TOKENS: '8000', KB_CHAT_HISTORY_TOKENS: '0' });
    expect(set.llm.maxTokens).toBe(4096);
    expect(set.answers).toMatchObject({ contextTokens: 8000, historyTokens: 0 });
    expect(() => loadConfig({ KB_ANSWER_MAX_TOKENS: '0', KB_CHAT_CONTEXT_TOKENS: '10' })).toThrow(/KB_ANSWER_MAX_TOKENS.*\n.*KB_CHAT_CONTEXT_TOKENS/s);
  });

  it('reads the FAQ limits and budget; the anonymous FAQ leaves the wiki out unless it is named', () => {
    const publicOnes = ['user_docs', 'tech_docs', 'api_endpoints'];
    expect(loadConfig({}).faq).toEqual({ requestsPerMinute: 300, missesPerMinute: 10, dailyLimit: 1000, contextTokens: 6000, namespaces: publicOnes });
    expect(loadConfig({ KB_FAQ_NAMESPACES: 'user_docs,wiki' }).faq.namespaces).toEqual(['user_docs', 'wiki']);
    const set = loadConfig({ KB_FAQ_RATE_LIMIT_PER_MINUTE: '0', KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE: '50', KB_FAQ_DAILY_LIMIT: '20', KB_FAQ_CONTEXT_TOKENS: '9000', KB_FAQ_NAMESPACES: 'user_docs,tech_docs' });
    expect(set.faq).toEqual({ requestsPerMinute: 50, missesPerMinute: 0, dailyLimit: 20, contextTokens: 9000, namespaces: ['user_docs', 'tech_docs'] });
    expect(() => loadConfig({ KB_FAQ_RATE_LIMIT_PER_MINUTE: '-1', KB_FAQ_DAILY_LIMIT: 'many' })).toThrow(/KB_FAQ_RATE_LIMIT_PER_MINUTE: must be 0 or more.*\n.*KB_FAQ_DAILY_LIMIT: must be a number/s);
  });

  it('reads which proxies say the client address: none by default, true is one hop, a count, or ranges', () => {
    expect(loadConfig({}).server).toMatchObject({ trustProxy: false, trustedProxies: null });
    expect(loadConfig({ KB_TRUST_PROXY: 'false' }).server).toMatchObject({ trustProxy: false, trustedProxies: null });
    expect(loadConfig({ KB_TRUST_PROXY: 'true' }).server).toMatchObject({ trustProxy: true, trustedProxies: { hops: 1 } });
    expect(loadConfig({ KB_TRUST_PROXY: '2' }).server.trustedProxies).toEqual({ hops: 2 });
    expect(loadConfig({ KB_TRUST_PROXY: '0' }).server.trustedProxies).toBeNull();
    expect(loadConfig({ KB_TRUST_PROXY: ' 10.0.0.0/8, loopback ,fd00::/8,192.0.2.7' }).server).toMatchObject({
      trustProxy: true,
      trustedProxies: { ranges: ['10.0.0.0/8', 'loopback', 'fd00::/8', '192.0.2.7'] },
    });
    for (const bad of ['maybe', '21', '10.0.0.0/33', '10.0.0/8', 'proxy.example', '10.0.0.1/8/1', '::1/129']) {
      expect(() => loadConfig({ KB_TRUST_PROXY: bad }), bad).toThrow(/KB_TRUST_PROXY: must be false, true/);
    }
  });

  it('reads the query log retention: 30 days by default, 0 turns recording off', () => {
    expect(loadConfig({}).insights).toEqual({ queryLogDays: 30 });
    expect(loadConfig({ KB_QUERY_LOG_DAYS: '0' }).insights).toEqual({ queryLogDays: 0 });
    expect(loadConfig({ KB_QUERY_LOG_DAYS: '365' }).insights).toEqual({ queryLogDays: 365 });
    expect(() => loadConfig({ KB_QUERY_LOG_DAYS: '-1' })).toThrow(/KB_QUERY_LOG_DAYS: must be 0 or more/);
    expect(() => loadConfig({ KB_QUERY_LOG_DAYS: '1.5' })).toThrow(/KB_QUERY_LOG_DAYS: must be a whole number/);
  });

  it("reads the limit of a hybrid search's lexical candidates: 4,000 by default, 0 for none", () => {
    expect(loadConfig({}).search).toEqual({ lexicalCandidates: 4_000 });
    expect(loadConfig({ KB_SEARCH_LEXICAL_CANDIDATES: '0' }).search).toEqual({ lexicalCandidates: 0 });
    expect(loadConfig({ KB_SEARCH_LEXICAL_CANDIDATES: '20000' }).search).toEqual({ lexicalCandidates: 20_000 });
    expect(() => loadConfig({ KB_SEARCH_LEXICAL_CANDIDATES: '-5' })).toThrow(/KB_SEARCH_LEXICAL_CANDIDATES: must be 0 or more/);
    expect(() => loadConfig({ KB_SEARCH_LEXICAL_CANDIDATES: 'all' })).toThrow(/KB_SEARCH_LEXICAL_CANDIDATES: must be a number/);
  });

  it('reads the MCP endpoint settings: instructions, extra hosts and origins as lists', () => {
    expect(loadConfig({}).mcp).toEqual({ instructions: undefined, allowedHosts: [], allowedOrigins: [] });
    expect(loadConfig({ KB_MCP_INSTRUCTIONS: 'Docs of Orbit.', KB_MCP_ALLOWED_HOSTS: ' KB.internal, kb.local ,', KB_MCP_ALLOWED_ORIGINS: 'http://localhost:6274' }).mcp).toEqual({
      instructions: 'Docs of Orbit.',
      allowedHosts: ['kb.internal', 'kb.local'],
      allowedOrigins: ['http://localhost:6274'],
    });
  });

  it('reads metrics and tracing settings: off by default, metrics on the API port only behind a token', () => {
    expect(loadConfig({}).telemetry).toEqual({ metrics: { enabled: false, host: '127.0.0.1', workerPort: 9464 }, tracing: null });
    expect(() => loadConfig({ KB_METRICS: 'true', KB_METRICS_TOKEN: 'short' })).toThrow(/KB_METRICS_TOKEN: must be at least 16/);
    expect(loadConfig({ KB_METRICS: 'true', KB_METRICS_TOKEN: 'a-long-enough-token' }).telemetry.metrics).toEqual({ enabled: true, token: 'a-long-enough-token', host: '127.0.0.1', workerPort: 9464 });
    expect(loadConfig({ KB_METRICS: '1', KB_METRICS_PORT: '9100', KB_METRICS_HOST: '10.0.0.5', KB_WORKER_METRICS_PORT: '9101' }).telemetry.metrics).toEqual({ enabled: true, port: 9100, host: '10.0.0.5', workerPort: 9101 });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc,x-team=docs' }).telemetry.tracing).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      headers: { authorization: 'Bearer abc', 'x-team': 'docs' },
      serviceName: 'kb',
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://x.test/traces', OTEL_SERVICE_NAME: 'kb-eu' }).telemetry.tracing).toMatchObject({ endpoint: 'https://x.test/traces', serviceName: 'kb-eu' });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).telemetry.tracing).toBeNull();
  });
});
