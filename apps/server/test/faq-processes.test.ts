import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmptyPostgresDatabase, isPostgresAvailable } from '@kb/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MENUS } from './faq-fixtures.ts';
import { freePort, run, runToEnd, stopAll, waitFor } from './processes.ts';

const available = await isPostgresAvailable();

/**
 * A stand-in for the Messages API the server processes call (msw intercepts only this process):
 * it counts the calls and answers each after `delayMs` with an FAQ tool call.
 */
function fakeAnthropic(delayMs: number): Promise<{ server: Server; url: string; calls: () => number }> {
  let calls = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/messages') {
      res.writeHead(404).end();
      return;
    }
    calls++;
    req.resume();
    setTimeout(() => {
      const pairs = [1, 2, 3, 4, 5].map((n) => ({ question: `How do menus work, part ${n}?`, answer: `Answer ${n}.`, sources: ['Menus'] }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'msg',
          type: 'message',
          role: 'assistant',
          model: 'claude-test-model',
          content: [{ type: 'tool_use', id: 'toolu', name: 'record_faq', input: { pairs } }],
          stop_reason: 'tool_use',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
    }, delayMs);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls })),
  );
}

describe.runIf(available)('the FAQ across two server processes on PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  let anthropic: Awaited<ReturnType<typeof fakeAnthropic>>;
  const servers: ChildProcess[] = [];
  const urls: string[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createEmptyPostgresDatabase();
    anthropic = await fakeAnthropic(1_000);
    env = {
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: anthropic.url,
      ANTHROPIC_MODEL: 'claude-test-model',
    };
    const migrated = await runToEnd(['packages/cli/src/main.ts', 'migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      servers.push(run(['apps/server/src/main.ts'], { ...env, PORT: String(port) }));
      urls.push(`http://127.0.0.1:${port}`);
    }
    await Promise.all(urls.map((u) => waitFor(`${u}/readyz`)));
  }, 300_000);

  afterAll(async () => {
    await stopAll(servers);
    await new Promise((resolve) => anthropic?.server.close(resolve));
    await database?.drop();
  });

  it('makes an FAQ once for concurrent requests to both processes; every request gets it', async () => {
    const created = await runToEnd(['packages/cli/src/main.ts', 'keys', 'create', '--label', 'admin', '--admin', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout);
    const ingested = await fetch(`${urls[0]}/api/v1/ingest/md`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Menus', slug: 'menus', namespace: 'user_docs', content: MENUS }),
    });
    expect(ingested.status).toBe(200);

    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => fetch(`${urls[i % 2]}/api/v1/faq?q=menus`)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ cached: boolean; content: string }>));
    expect(anthropic.calls()).toBe(1);
    expect(bodies.filter((b) => !b.cached)).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.content)).size).toBe(1);
    expect(bodies[0]!.content).toContain('## How do menus work, part 1?');
  });
});
