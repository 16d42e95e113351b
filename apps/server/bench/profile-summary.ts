/**
 * Summarises a `node --cpu-prof` profile (such as request-path.bench.ts --profile writes): self
 * time by stage of the request path (by the file a function is in) and the top functions, per
 * request when given the number of requests the profile covers. Idle time is left out.
 *
 * `--last-seconds` keeps the profile's last seconds only (the steady load, not the start-up);
 * `--callers=NAME` prints the call paths that lead to a function's self time.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [--requests=1500] [--last-seconds=30] [--top=25] [--callers=writev]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string', default: '1' },
    top: { type: 'string', default: '25' },
    'last-seconds': { type: 'string' },
    callers: { type: 'string' },
  },
});
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };
const requests = Number(values.requests);

/** Stages of the request path, first match wins, by the function's file. */
const STAGES: Array<[string, RegExp]> = [
  ['garbage collection', /^\(garbage collector\)$/],
  ['rate limit (ioredis, counters)', /ioredis|rate-limiter-flexible|redis-parser|ratelimit/],
  ['statements (pg client)', /\/pg\/|pg-protocol|pg-pool|pg-types|postgres-array/],
  ['statement building (Kysely)', /kysely/],
  ['validation (zod)', /\/zod\//],
  ['REST adapter (trpc-to-openapi)', /trpc-to-openapi/],
  ['tRPC (middleware, procedure call)', /@trpc\//],
  ['logging (pino)', /pino|sonic-boom/],
  ['metrics (prom-client)', /prom-client/],
  ['tracing (OpenTelemetry)', /opentelemetry/],
  ['MCP SDK', /modelcontextprotocol/],
  ['text analysis (@kb/content)', /packages\/content\//],
  ['search service (@kb/core search)', /packages\/core\/(dist|src)\/search\//],
  ['embedding (@kb/core embeddings)', /packages\/core\/(dist|src)\/embeddings\//],
  ['other @kb/core', /packages\/core\//],
  ['procedures, context (@kb/api)', /packages\/api\//],
  ['HTTP host (@kb/server)', /apps\/server\//],
  ['@kb/db', /packages\/db\//],
  ['HTTP and sockets (node)', /^node:(_http|http|net|internal\/http|internal\/stream_base|internal\/streams|stream|events|internal\/timers|timers|internal\/process\/task_queues|internal\/async_hooks|internal\/util|buffer|internal\/buffer|string_decoder|internal\/url|url)|^node:internal\/(http|streams|stream_base|net)/],
  ['native (program, builtins)', /^$/],
];

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const from = values['last-seconds'] === undefined ? -Infinity : profile.endTime - Number(values['last-seconds']) * 1e6;
const self = new Map<number, number>();
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  at += profile.timeDeltas[i] ?? 0;
  if (at >= from) self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

const stages = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  if (functionName === '(idle)') continue;
  total += us;
  const stage = STAGES.find(([, re]) => re.test(functionName.startsWith('(') ? functionName : url))?.[0] ?? 'other';
  stages.set(stage, (stages.get(stage) ?? 0) + us);
  const where = url ? `${url.replace(/^.*node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '').replace(/^.*\/(packages|apps)\//, '$1/').replace(/^file:\/\//, '')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}
const ms = (us: number) => (us / 1000 / requests).toFixed(3);
const pct = (us: number) => `${((100 * us) / total).toFixed(1)}%`;
console.log(`CPU (busy, idle left out): ${ms(total)} ms a request over ${requests} requests\n`);
console.log('| stage | ms a request | share |\n|---|---|---|');
for (const [stage, us] of [...stages].sort((a, b) => b[1] - a[1])) console.log(`| ${stage} | ${ms(us)} | ${pct(us)} |`);
console.log(`\n| top functions (self time) | ms a request | share |\n|---|---|---|`);
for (const [fn, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.log(`| \`${fn}\` | ${ms(us)} | ${pct(us)} |`);

if (values.callers !== undefined) {
  const paths = new Map<string, number>();
  for (const [id, us] of self) {
    if (byId.get(id)!.callFrame.functionName !== values.callers) continue;
    const chain: string[] = [];
    for (let p = parent.get(id); p !== undefined && chain.length < 8; p = parent.get(p)) {
      const f = byId.get(p)!.callFrame;
      chain.push(`${f.functionName || '(anonymous)'}@${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`);
    }
    const key = chain.join(' < ');
    paths.set(key, (paths.get(key) ?? 0) + us);
  }
  console.log(`\ncallers of ${values.callers}:`);
  for (const [path, us] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${ms(us)} ms  ${path}`);
}
