import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
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
    const progress: number[] = [];
    const asked = (await client.callTool({ name: 'ask', arguments: { question: 'How do I restore a backup?' } }, undefined, { onprogress: (p) => progress.push(p.progress) })) as CallToolResult;
    expect((asked.structuredContent as { sources: Array<{ documentId: string }> }).sources[0]!.documentId).toBe(documentId);
    expect(progress).toEqual([1, 2, 3]);
    const bad = (await client.callTool({ name: 'fetch_document', arguments: { id: 'nope' } })) as CallToolResult;
    expect(bad).toMatchObject({ isError: true, content: [{ text: 'No such document' }] });
    await client.close();
  }, 60_000);

  it('reports a refused key to the client as a JSON-RPC error', async () => {
    const { client, transport } = start(['--api-url', service.url, '--key', `kb_${'A'.repeat(40)}`]);
    await expect(client.connect(transport)).rejects.toThrow(/refused or could not be reached.*Unknown or revoked API key/s);
    await client.close();
  }, 60_000);
});
