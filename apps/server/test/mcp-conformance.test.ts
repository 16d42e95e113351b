import { execFile } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './helpers.ts';

const run = promisify(execFile);
const SUITE = fileURLToPath(import.meta.resolve('@modelcontextprotocol/conformance/dist/index.js'));
const REGISTER = fileURLToPath(new URL('./conformance/register.mjs', import.meta.url));

/**
 * The scenarios of `@modelcontextprotocol/conformance` that apply to this server. The others need
 * the suite's fixture tools, prompts and resources, or features a stateless read-only server does
 * not have (docs/mcp.md lists each with why).
 */
export const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'logging-set-level', 'resources-list', 'dns-rebinding-protection'];

/**
 * The suite cannot send an Authorization header: a relay on loopback adds the key and passes
 * everything else (Host and Origin included) through unchanged.
 */
function keyRelay(target: URL, key: string): Promise<Server> {
  const relay = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => relay.listen(0, '127.0.0.1', () => resolve(relay)));
}

describe('the MCP conformance suite', () => {
  let service: TestService;
  let relay: Server;

  beforeAll(async () => {
    service = await startTestService('pglite');
    relay = await keyRelay(new URL(service.url), (await service.createKey({ label: 'conformance' })).key);
  }, 60_000);
  afterAll(async () => {
    relay?.close();
    await service?.close();
  });

  it.each(APPLICABLE_SCENARIOS)('%s passes', async (scenario) => {
    const url = `http://127.0.0.1:${(relay.address() as AddressInfo).port}/mcp`;
    // Node 20 lacks fs.globSync, which the suite imports: the hook supplies it.
    const result = await run(process.execPath, ['--import', REGISTER, SUITE, 'server', '--url', url, '--scenario', scenario], { timeout: 60_000 }).catch(
      (error: { stdout?: string; stderr?: string; code?: number }) => ({ stdout: error.stdout ?? '', stderr: `${error.stderr ?? ''} (exit ${error.code})` }),
    );
    const output = `${result.stdout}\n${result.stderr}`;
    // Every check passed, none skipped or warned about.
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
    expect(summary, output).not.toBeNull();
    const [, passed, total, failed, warnings] = summary!.map(Number);
    expect({ passed, failed, warnings }, output).toEqual({ passed: total, failed: 0, warnings: 0 });
    expect(total, output).toBeGreaterThan(0);
  }, 90_000);
});
