import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from './helpers.ts';

const KB = fileURLToPath(new URL('../../../packages/cli/bin/kb.js', import.meta.url));

const PAGE = `---
url: https://docs.example.com/backups
---
# Backups

Run \`orbit backup create\` nightly; restore with \`orbit backup restore\`.
`;

/** `kb mcp` as an MCP client starts it: a local process speaking MCP on stdio, relaying to the running server. */
describe('kb mcp (stdio, relaying to a running server)', () => {
  let service: TestService;
  let key: string;
  let documentId: string;

  function start(args: string[]): { client: Client; transport: StdioClientTransport } {
    const transport = new StdioClientTransport({ command: process.execPath, args: [KB, 'mcp', ...args], stderr: 'pipe', env: { PATH: process.env.PATH ?? '' } });
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    return { client, transport };
  }

  beforeAll(async () => {
    service = await startTestService('pglite');
    const admin = (await service.createKey({ admin: true })).key;
    key = (await service.createKey({ label: 'agent' })).key;
    documentId = (await json(await service.api('/api/v1/ingest/md', { method: 'POST', key: admin, json: { title: 'Backups', slug: 'ops/backups.md', namespace: 'tech_docs', content: PAGE } }))).documentId;
  }, 60_000);
  afterAll(() => service?.close());

  it('initializes, lists the tools and calls them through the server', async () => {
    const { client, transport } = start(['--api-url', `${service.url}/api/v1`, '--key', key]);
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'kb' });
    expect(client.getInstructions()).toContain('1 document');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask', 'fetch_document', 'get_context', 'list_namespaces', 'search']);
    const found = (await client.callTool({ name: 'search', arguments: { query: 'restore a backup' } })) as CallToolResult;
    expect((found.structuredContent as { results: Array<{ documentId: string }> }).results[0]!.documentId).toBe(documentId);
    const doc = (await client.callTool({ name: 'fetch_document', arguments: { url: 'https://docs.example.com/backups' } })) as CallToolResult;
    expect(doc.structuredContent).toMatchObject({ id: documentId, content: PAGE });
    const asked = (await client.callTool({ name: 'ask', arguments: { question: 'How do I restore a backup?' } })) as CallToolResult;
    expect((asked.structuredContent as { sources: Array<{ documentId: string }> }).sources[0]!.documentId).toBe(documentId);
    const bad = (await client.callTool({ name: 'fetch_document', arguments: { id: 'nope' } })) as CallToolResult;
    expect(bad).toMatchObject({ isError: true, content: [{ text: 'No such document' }] });
    await client.close();
  }, 60_000);

  // Read off the wire rather than through the SDK's client: that client handles a notification a
  // tick after the response read in the same chunk, so what it reports depends on how the pipe was
  // read, not on what `kb mcp` wrote.
  it("forwards an answer's progress notifications in order, before the answer", async () => {
    const child = spawn(process.execPath, [KB, 'mcp', '--api-url', `${service.url}/api/v1`, '--key', key], { env: { PATH: process.env.PATH ?? '' } });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    /** Every message written until the response to `id`, that response last. */
    async function until(id: number): Promise<Array<{ id?: number; method?: string; params?: { progress?: number; progressToken?: string }; result?: unknown }>> {
      const read = [];
      for (;;) {
        const { value, done } = await lines.next();
        if (done) throw new Error(`kb mcp closed before answering request ${id}`);
        const message = JSON.parse(value as string) as { id?: number };
        read.push(message);
        if (message.id === id) return read;
      }
    }
    try {
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'wire', version: '1.0.0' } } });
      expect((await until(1)).at(-1)).toMatchObject({ id: 1, result: { serverInfo: { name: 'kb' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: { question: 'How do I restore a backup?' }, _meta: { progressToken: 'ask-1' } } });
      const read = await until(2);
      const progress = read.filter((m) => m.method === 'notifications/progress');
      expect(progress.map((m) => [m.params?.progressToken, m.params?.progress])).toEqual([['ask-1', 1], ['ask-1', 2], ['ask-1', 3]]);
      expect(read.at(-1)).toMatchObject({ id: 2, result: { structuredContent: { sources: [{ documentId }] } } });
    } finally {
      child.stdin.end();
      child.kill();
    }
  }, 60_000);

  it('reports a refused key to the client as a JSON-RPC error', async () => {
    const { client, transport } = start(['--api-url', service.url, '--key', `kb_${'A'.repeat(40)}`]);
    await expect(client.connect(transport)).rejects.toThrow(/refused or could not be reached.*Unknown or revoked API key/s);
    await client.close();
  }, 60_000);
});
