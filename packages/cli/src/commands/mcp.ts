import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CliError } from '../store.ts';

export const MCP_USAGE = `kb mcp --api-url URL --key KEY

Serves the knowledge base to an MCP client that starts a local process (Claude Desktop, Cursor,
VS Code): speaks MCP on stdin/stdout and relays every message to the running server's /mcp
endpoint with the key. The tools, their limits and the key's namespaces are the server's.

  --api-url URL   the server's address, e.g. https://kb.example.com
  --key KEY       an API key, secret or publishable`;

/** How long a progress notification goes ahead of what follows it. */
const PROGRESS_GAP_MS = 50;

function option(args: readonly string[], name: string): string | undefined {
  const index = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (index === -1) return undefined;
  const arg = args[index]!;
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[index + 1];
}

/** The server's MCP endpoint from its address (with or without /api/v1 or /mcp). */
export function mcpEndpoint(apiUrl: string): URL {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new CliError(`--api-url must be a URL such as http://localhost:3000, not ${JSON.stringify(apiUrl)}`, 2);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError('--api-url must be an http or https URL', 2);
  const base = url.pathname.replace(/\/+$/, '').replace(/\/(api\/v1|mcp)$/, '');
  return new URL(`${base}/mcp`, url.origin);
}

/**
 * `kb mcp`: one stdio MCP server in front of the running service. Messages pass through both
 * ways unchanged (progress notifications included); a request the server cannot be reached for
 * is answered with a JSON-RPC error the client can show. Runs until stdin closes.
 */
export async function mcpCommand(args: readonly string[], err: (line: string) => void): Promise<number> {
  const apiUrl = option(args, '--api-url');
  const key = option(args, '--key');
  if (!apiUrl || !key) throw new CliError(`kb mcp needs --api-url and --key\n\n${MCP_USAGE}`, 2);
  const endpoint = mcpEndpoint(apiUrl);

  const remote = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
  const local = new StdioServerTransport();

  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      err(`kb mcp: ${endpoint.href}: ${reason}`);
      if (isJSONRPCRequest(message)) {
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: `The knowledge base at ${endpoint.origin} refused or could not be reached: ${reason}` } });
      }
    });
  };
  // Forwarded in order. A progress notification is given a moment on its own: a client that reads
  // it in the same chunk as the answer it belongs to (the MCP SDK's does) would drop it as late.
  let forwarding = Promise.resolve();
  remote.onmessage = (message) => {
    forwarding = forwarding
      .then(() => local.send(message))
      .then(() => ('method' in message && message.method === 'notifications/progress' ? new Promise<void>((resolve) => setTimeout(resolve, PROGRESS_GAP_MS)) : undefined))
      .catch((error: unknown) => err(`kb mcp: ${error instanceof Error ? error.message : String(error)}`));
  };
  remote.onerror = (error) => err(`kb mcp: ${error.message}`);

  const closed = new Promise<number>((resolve) => {
    local.onclose = () => resolve(0);
  });
  process.stdin.on('end', () => void local.close());
  await remote.start();
  await local.start();
  const code = await closed;
  await remote.close();
  return code;
}
