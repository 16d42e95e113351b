/**
 * Faults under load: a services-mode deployment (two servers, one worker) on a PostgreSQL cluster
 * and a Redis server of this test's own, under mixed HTTP load (searches, streamed chats,
 * ingests, wiki imports against a fake Confluence, FAQ requests), while PostgreSQL restarts, Redis
 * restarts (losing every key), the worker is SIGKILLed in the middle of a job and a server in the
 * middle of a stream. Then it checks what clients and the store saw, prints the figures and exits
 * 1 on any broken guarantee. `pnpm --filter @kb/server test:faults`; see docs/resilience.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSpace, startFakeConfluence } from '@kb/core/testing';
import { createParser } from 'eventsource-parser';
import { freePort, repoRoot } from '../test/processes.ts';
import { FULL_ANSWER, startFakeClaude } from './fake-claude.ts';
import { PostgresCluster, RedisServer } from './infrastructure.ts';

const LOAD_CLIENTS = Number(process.env.FAULTS_CLIENTS ?? 6);
const REQUEST_TIMEOUT_MS = 30_000;
/** After the load stops, how long jobs and servers have to settle before the checks. */
const SETTLE_MS = 120_000;
const KEEP = process.env.FAULTS_KEEP === '1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const started = Date.now();
const at = () => ((Date.now() - started) / 1000).toFixed(1);
function say(line: string): void {
  console.log(`[${at().padStart(6)} s] ${line}`);
}

// --- processes of the deployment ------------------------------------------------------------

interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
}

/**
 * A server or worker as production runs it: the compiled code (`pnpm build` first; the test:faults
 * script does). FAULTS_SOURCE=1 runs the TypeScript sources through tsx instead.
 */
async function startProcess(name: string, entry: 'main' | 'worker-main', env: Record<string, string>, logDir: string): Promise<Proc> {
  const log = join(logDir, `${name}.log`);
  const file = await open(log, 'a');
  const args = process.env.FAULTS_SOURCE === '1' ? ['--import', 'tsx', `apps/server/src/${entry}.ts`] : ['--conditions=production', `apps/server/dist/${entry}.js`];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', file.fd, file.fd],
  });
  child.once('exit', () => void file.close().catch(() => undefined));
  return { name, child, log };
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function kill(proc: Proc, signal: NodeJS.Signals): Promise<void> {
  const done = exited(proc.child);
  proc.child.kill(signal);
  await done;
}

async function waitReady(url: string, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3_000) })).ok) return;
    } catch {
      // not up yet
    }
    await sleep(200);
  }
  throw new Error(`${url} was not ready within ${ms / 1000} s`);
}

// --- what clients saw -------------------------------------------------------------------------

type Op = 'search' | 'chat' | 'ingest' | 'faq' | 'wiki' | 'conversation';
interface Outcome {
  op: Op;
  server: number;
  t: number;
  /** HTTP status, or 'connection' (refused, reset) or 'timeout'. */
  status: number | 'connection' | 'timeout';
  message?: string;
  /** A stream that ended with an error event (status 200), or was cut. */
  streamError?: string;
  /** When the stream ended. */
  ended?: number;
}
const outcomes: Outcome[] = [];

/** Periods in which a fault was in effect, for telling expected 503s and refused connections from others. */
interface Window {
  fault: string;
  from: number;
  to: number;
  server?: number;
}
const windows: Window[] = [];

async function request(op: Op, server: number, url: string, init: RequestInit & { json?: unknown } = {}): Promise<{ res?: Response; outcome: Outcome }> {
  const t = Date.now();
  const { json, ...rest } = init;
  try {
    const res = await fetch(url, {
      ...rest,
      ...(json !== undefined ? { method: rest.method ?? 'POST', body: JSON.stringify(json), headers: { ...(rest.headers as Record<string, string>), 'content-type': 'application/json' } } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const outcome: Outcome = { op, server, t, status: res.status };
    outcomes.push(outcome);
    if (res.status >= 400) {
      const text = await res.text().catch(() => '');
      try {
        outcome.message = (JSON.parse(text) as { message?: string }).message;
      } catch {
        outcome.message = text.slice(0, 200);
      }
      return { outcome };
    }
    return { res, outcome };
  } catch (error) {
    const name = (error as Error).name;
    const outcome: Outcome = { op, server, t, status: name === 'TimeoutError' ? 'timeout' : 'connection', message: String((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message) };
    outcomes.push(outcome);
    return { outcome };
  }
}

// --- the scenario ---------------------------------------------------------------------------

async function main(): Promise<number> {
  const root = await mkdtemp(join(tmpdir(), 'kb-faults-'));
  say(`working directory ${root}`);
  const [pgPort, redisPort, portA, portB] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const procs: Proc[] = [];
  let keep = KEEP;
  let postgres: PostgresCluster | undefined;
  const redis = new RedisServer(root, redisPort);
  const claude = await startFakeClaude();
  const spaces = [
    generateSpace({ key: 'OPS', pages: 40, pageBytes: 3_000, seed: 11 }),
    ...Array.from({ length: 6 }, (_, i) => generateSpace({ key: `S${i}`, pages: 12, pageBytes: 2_000, seed: 100 + i })),
  ];
  const confluence = await startFakeConfluence({ spaces, pageLimitMax: 5 });
  // Every Confluence request takes a while, so an import is still running when its worker dies.
  confluence.fault(() => true, { delayMs: 250 }, 1_000_000);

  try {
    postgres = await PostgresCluster.create(root, pgPort);
    await redis.start();
    say(`PostgreSQL on ${pgPort}, Redis on ${redisPort}`);

    const env: Record<string, string> = {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: postgres.url,
      REDIS_URL: redis.url,
      ANTHROPIC_API_KEY: 'sk-ant-fake',
      ANTHROPIC_BASE_URL: claude.url,
      WIKI_BASE_URL: confluence.url,
      WIKI_EMAIL: confluence.email,
      WIKI_API_TOKEN: confluence.apiToken,
      KB_JOB_LOCK_MS: '4000',
      KB_FAQ_RATE_LIMIT_PER_MINUTE: '1000000',
      KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE: '1000000',
    };
    const servers = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
    const serverProcs: Proc[] = [];
    const startServer = async (i: number, generation: number) => {
      const proc = await startProcess(`server-${'AB'[i]}-${generation}`, 'main', { ...env, PORT: String([portA, portB][i]) }, root);
      procs.push(proc);
      serverProcs[i] = proc;
      return proc;
    };
    let worker = await startProcess('worker-1', 'worker-main', env, root);
    procs.push(worker);
    // The first server migrates the store; the second starts once it has.
    await startServer(0, 1);
    await waitReady(servers[0]!);
    await startServer(1, 1);
    await waitReady(servers[1]!);
    say('two servers and a worker are up');

    const created = await runCli(['keys', 'create', '--label', 'faults', '--admin', '--json'], env);
    const key = (JSON.parse(created) as { key: string }).key;
    const auth = { authorization: `Bearer ${key}` };

    // Material for searches, chats and FAQs, and the size of a load ingest (chunks per document).
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${servers[0]}/api/v1/ingest/md`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ namespace: 'user_docs', slug: `guide-${i}`, title: `Guide ${i}: menus and deployment`, content: guide(i) }),
      });
      if (!res.ok) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }
    const probeSlug = 'load-probe';
    const probe = await fetch(`${servers[0]}/api/v1/ingest/md`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: 'tech_docs', slug: probeSlug, title: 'Load probe', content: loadDocument(probeSlug) }),
    });
    if (!probe.ok) throw new Error(`probe ingest failed: ${probe.status}`);
    const chunksPerLoadDocument = (await postgres.query<{ chunk_count: number }>('select chunk_count from documents where slug = $1', [probeSlug]))[0]!.chunk_count;
    say(`seeded; a load document has ${chunksPerLoadDocument} chunks`);

    // --- load ---------------------------------------------------------------------------------
    const acknowledged = new Set<string>();
    const attempted = new Set<string>();
    const acceptedJobs = new Map<string, string>(); // job id -> space key
    const streams: Array<{ server: number; conversationId?: string; text: string; done: boolean; error?: string; cut: boolean }> = [];
    let stop = false;
    let serial = 0;
    const downServers = new Set<number>();

    const chat = async (server: number, onChunk?: () => void) => {
      const { res, outcome } = await request('chat', server, `${servers[server]}/api/v1/chat`, { headers: auth, json: { message: `How do I deploy with menus, step ${serial++}?` } });
      if (!res) return;
      const record: (typeof streams)[number] = { server, text: '', done: false, cut: false };
      streams.push(record);
      let chunks = 0;
      const parser = createParser({
        onEvent(event) {
          if (event.data === '[DONE]') {
            record.done = true;
            return;
          }
          const data = JSON.parse(event.data) as { type: string; conversationId?: string; text?: string; message?: string };
          if (data.type === 'meta') record.conversationId = data.conversationId;
          else if (data.type === 'chunk') {
            record.text += data.text;
            if (++chunks === 2) onChunk?.();
          } else if (data.type === 'error') {
            record.error = data.message;
            outcome.streamError = data.message;
          }
        },
      });
      try {
        const decoder = new TextDecoder();
        for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(part, { stream: true }));
      } catch (error) {
        record.cut = true;
        outcome.streamError = `stream cut: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}`;
      }
      if (!record.done && !record.cut) record.cut = true;
      outcome.ended = Date.now();
    };

    const ingest = async (server: number) => {
      const slug = `load-${serial++}`;
      attempted.add(slug);
      // A client retries what was not acknowledged, as a real one would (same slug: same document).
      for (let attempt = 0; attempt < 4 && !stop; attempt++) {
        const { res } = await request('ingest', (server + attempt) % 2, `${servers[(server + attempt) % 2]}/api/v1/ingest/md`, {
          headers: auth,
          json: { namespace: 'tech_docs', slug, title: `Load ${slug}`, content: loadDocument(slug) },
        });
        if (res) {
          await res.json();
          acknowledged.add(slug);
          return;
        }
        await sleep(500);
      }
    };

    const client = async (n: number) => {
      while (!stop) {
        const server = Math.random() < 0.5 ? 0 : 1;
        const pick = Math.random();
        if (pick < 0.3) {
          const { res } = await request('search', server, `${servers[server]}/api/v1/search`, { headers: auth, json: { query: `menus deployment ${n}`, topK: 3 } });
          await res?.json();
        } else if (pick < 0.55) await chat(server);
        else if (pick < 0.8) await ingest(server);
        else if (pick < 0.95) {
          const topic = ['menus', 'deployment', 'guides'][Math.floor(Math.random() * 3)]!;
          const { res } = await request('faq', server, `${servers[server]}/api/v1/faq?q=${topic}`);
          await res?.json();
        } else {
          const { res } = await request('conversation', server, `${servers[server]}/api/v1/conversations?limit=5`, { headers: auth });
          await res?.json();
        }
        await sleep(downServers.has(server) ? 200 : 20);
      }
    };

    const submitWiki = async (space: string) => {
      const server = serial++ % 2;
      const { res } = await request('wiki', server, `${servers[server]}/api/v1/ingest/wiki`, { headers: auth, json: { spaceKey: space, namespace: 'wiki' } });
      if (res) acceptedJobs.set(((await res.json()) as { jobId: string }).jobId, space);
    };
    const jobs = async () =>
      postgres!.query<{ id: string; status: string; attempts: number; progress: { total: number; done: number; skipped: number; failed: number }; error: string | null }>(
        'select id, status, attempts, progress, error from ingestion_jobs',
      );

    say(`load: ${LOAD_CLIENTS} clients`);
    const clients = Array.from({ length: LOAD_CLIENTS }, (_, n) => client(n));
    let wikiSerial = 0;
    const wikiClient = (async () => {
      while (!stop) {
        await sleep(8_000);
        if (!stop) await submitWiki(`S${wikiSerial++ % 6}`);
      }
    })();

    // 1. The worker, SIGKILLed in the middle of the OPS import; its supervisor starts another.
    await sleep(2_000);
    await submitWiki('OPS');
    const opsJob = [...acceptedJobs].find(([, space]) => space === 'OPS')?.[0];
    if (!opsJob) throw new Error('the OPS import was not accepted');
    for (;;) {
      const job = (await jobs()).find((j) => j.id === opsJob);
      if (job?.status === 'running' && job.progress.done >= 5) break;
      if (job?.status === 'done' || job?.status === 'failed') throw new Error(`the OPS import ended before the worker could be killed: ${job.status}`);
      await sleep(200);
    }
    let t = Date.now();
    await kill(worker, 'SIGKILL');
    say('worker SIGKILLed in the middle of the OPS import');
    await sleep(2_000);
    worker = await startProcess('worker-2', 'worker-main', env, root);
    procs.push(worker);
    windows.push({ fault: 'worker killed', from: t, to: Date.now() });

    // 2. Server B, SIGKILLed in the middle of a stream; its supervisor starts it again.
    await sleep(5_000);
    let midStream!: () => void;
    const streaming = new Promise<void>((resolve) => (midStream = resolve));
    const victim = chat(1, () => midStream());
    await Promise.race([streaming, sleep(15_000)]);
    t = Date.now();
    downServers.add(1);
    await kill(serverProcs[1]!, 'SIGKILL');
    say('server B SIGKILLed in the middle of a stream');
    await victim;
    await sleep(2_000);
    await startServer(1, 2);
    await waitReady(servers[1]!);
    downServers.delete(1);
    const serverRecovery = Date.now() - t;
    windows.push({ fault: 'server B killed', from: t, to: Date.now(), server: 1 });
    say(`server B answers again ${(serverRecovery / 1000).toFixed(1)} s after the kill`);

    // 3. PostgreSQL restarts (fast shutdown: sessions ended), down for 5 s.
    await sleep(5_000);
    t = Date.now();
    await postgres.stop('fast');
    say('PostgreSQL stopped');
    await sleep(5_000);
    await postgres.start();
    const pgUp = Date.now();
    say('PostgreSQL started again');
    const pgRecovery = await recovery(servers, auth);
    windows.push({ fault: 'PostgreSQL restart', from: t, to: Date.now() });
    say(`servers answer searches again ${pgRecovery.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(' and ')} after PostgreSQL was back (down ${((pgUp - t) / 1000).toFixed(1)} s)`);

    // 4. Redis restarts with nothing kept: queue entries and rate-limit counters are gone.
    await sleep(5_000);
    await submitWiki('S5');
    t = Date.now();
    await redis.stop();
    say('Redis stopped');
    await sleep(5_000);
    await redis.start();
    const redisUp = Date.now();
    say('Redis started again (empty)');
    const redisRecovery = await recovery(servers, auth);
    windows.push({ fault: 'Redis restart', from: t, to: Date.now() });
    say(`servers answer searches again ${redisRecovery.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(' and ')} after Redis was back (down ${((redisUp - t) / 1000).toFixed(1)} s)`);

    await sleep(8_000);
    stop = true;
    await Promise.all([...clients, wikiClient]);
    say('load stopped');

    // --- settle -------------------------------------------------------------------------------
    const settleStart = Date.now();
    let unfinished: Awaited<ReturnType<typeof jobs>> = [];
    while (Date.now() - settleStart < SETTLE_MS) {
      unfinished = (await jobs()).filter((j) => acceptedJobs.has(j.id) && (j.status === 'pending' || j.status === 'running'));
      if (unfinished.length === 0) break;
      await sleep(500);
    }
    const jobsSettled = Date.now() - settleStart;
    say(`jobs settled ${(jobsSettled / 1000).toFixed(1)} s after the load stopped`);

    // --- checks -------------------------------------------------------------------------------
    const failures: string[] = [];
    const check = (ok: boolean, what: string) => {
      if (!ok) failures.push(what);
    };

    for (const url of servers) {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      check(res?.status === 200, `${url} is ready again without a restart by hand (readyz ${res?.status ?? 'no answer'})`);
    }

    // Ingests: acknowledged ones stored exactly once, whole; others at most once.
    const rows = await postgres.query<{ slug: string; n: string; chunk_count: number; chunks: string }>(
      `select d.slug, count(*) over (partition by d.slug) as n, d.chunk_count, (select count(*) from chunks c where c.document_id = d.id) as chunks
       from documents d where d.namespace = 'tech_docs' and d.slug like 'load-%'`,
    );
    const bySlug = new Map(rows.map((r) => [r.slug, r]));
    for (const slug of acknowledged) {
      const row = bySlug.get(slug);
      check(row !== undefined, `acknowledged ingest ${slug} is stored`);
      if (row) {
        check(Number(row.n) === 1, `acknowledged ingest ${slug} is stored once (found ${row.n})`);
        check(Number(row.chunks) === chunksPerLoadDocument && row.chunk_count === chunksPerLoadDocument, `${slug} has its ${chunksPerLoadDocument} chunks once (found ${row.chunks}, chunk_count ${row.chunk_count})`);
      }
    }
    for (const row of rows) {
      check(Number(row.n) === 1, `${row.slug} stored once`);
      check(Number(row.chunks) === chunksPerLoadDocument, `${row.slug} whole (${row.chunks} chunks)`);
    }
    const orphans = await postgres.query<{ n: string }>('select count(*) as n from chunks c where not exists (select 1 from documents d where d.id = c.document_id)');
    check(Number(orphans[0]!.n) === 0, `no chunk without its document (${orphans[0]!.n})`);

    // Jobs: every accepted one done, with the result a clean run gives.
    const finalJobs = await jobs();
    for (const [id, space] of acceptedJobs) {
      const job = finalJobs.find((j) => j.id === id);
      const pages = spaces.find((s) => s.key === space)!.pages.length;
      check(job?.status === 'done', `job ${id} (${space}) is done (${job?.status ?? 'missing'}${job?.error ? `: ${job.error}` : ''})`);
      if (job?.status === 'done') {
        check(job.progress.total === pages && job.progress.failed === 0 && job.progress.done + job.progress.skipped === pages, `job ${id} (${space}) covers its ${pages} pages once: ${JSON.stringify(job.progress)}`);
      }
    }
    const wikiDocs = await postgres.query<{ slug: string; n: string; chunks: string; chunk_count: number }>(
      `select slug, count(*) over (partition by slug) as n, (select count(*) from chunks c where c.document_id = d.id) as chunks, chunk_count
       from documents d where namespace = 'wiki'`,
    );
    const importedSpaces = new Set(acceptedJobs.values());
    const expectedPages = spaces.filter((s) => importedSpaces.has(s.key)).reduce((n, s) => n + s.pages.length, 0);
    check(wikiDocs.length === expectedPages, `the wiki namespace holds each imported page once (${wikiDocs.length} documents for ${expectedPages} pages)`);
    for (const doc of wikiDocs) check(Number(doc.n) === 1 && Number(doc.chunks) === doc.chunk_count, `wiki page ${doc.slug} stored once and whole`);

    // Conversations: whole turns only, and no cut answer passed off as complete.
    const messages = await postgres.query<{ conversation_id: string; turn: number; role: string; content: string; interrupted: boolean }>(
      'select conversation_id, turn, role, content, interrupted from messages',
    );
    const turns = new Map<string, { user: number; answers: Array<{ content: string; interrupted: boolean }> }>();
    for (const m of messages) {
      const k = `${m.conversation_id}/${m.turn}`;
      const turn = turns.get(k) ?? { user: 0, answers: [] };
      if (m.role === 'user') turn.user++;
      else turn.answers.push({ content: m.content, interrupted: m.interrupted });
      turns.set(k, turn);
    }
    let unanswered = 0;
    let interrupted = 0;
    for (const [k, turn] of turns) {
      check(turn.user === 1, `turn ${k} has one question (${turn.user})`);
      check(turn.answers.length <= 1, `turn ${k} has at most one answer (${turn.answers.length})`);
      if (turn.answers.length === 0) unanswered++;
      for (const answer of turn.answers) {
        if (answer.interrupted) interrupted++;
        else check(answer.content === FULL_ANSWER, `turn ${k}: an answer stored as complete is whole (${answer.content.length} of ${FULL_ANSWER.length} characters)`);
      }
    }
    check(unanswered === 0, `every question has its answer or an interrupted one (${unanswered} without)`);
    for (const s of streams) {
      if (s.done && !s.error) check(s.text === FULL_ANSWER, `a stream that ended with [DONE] carried the whole answer (${s.text.length} characters)`);
    }

    // What clients saw: 2xx, 503 during an outage, refused connections from a killed server.
    const within = (o: Outcome, t = o.t, grace = 15_000) => windows.some((w) => t >= w.from - 1_000 && t <= w.to + grace && (w.server === undefined || w.server === o.server));
    const kinds = new Map<string, number>();
    for (const o of outcomes) {
      const kind = typeof o.status === 'number' ? (o.streamError ? `${o.status} + stream error` : String(o.status)) : o.status;
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (typeof o.status === 'number' && o.status >= 500 && o.status !== 503) check(false, `${o.op} on server ${'AB'[o.server]} at ${((o.t - started) / 1000).toFixed(1)} s: ${o.status} ${o.message ?? ''}`);
      if (o.status === 503) check(within(o), `${o.op} 503 outside any outage at ${((o.t - started) / 1000).toFixed(1)} s: ${o.message}`);
      if (o.status === 'timeout') check(false, `${o.op} on server ${'AB'[o.server]} got no answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
      if (o.status === 'connection') check(windows.some((w) => w.server === o.server && o.t >= w.from - 5_000 && o.t <= w.to), `${o.op}: connection error from a server that was not killed (${o.message})`);
      if (typeof o.status === 'number' && o.status >= 400 && o.status < 500) check(false, `${o.op}: unexpected ${o.status} ${o.message ?? ''}`);
      if (o.streamError && !o.streamError.startsWith('stream cut')) check(within(o, o.ended), `a stream failed outside any outage: ${o.streamError}`);
      if (o.streamError?.startsWith('stream cut')) check(o.server === 1 && windows.some((w) => w.server === 1 && o.t <= w.to), `a stream was cut by a server that was not killed`);
    }

    // --- figures ------------------------------------------------------------------------------
    console.log('');
    console.log('Faults under load: figures');
    console.log(`  requests          ${outcomes.length} (${[...count(outcomes, (o) => o.op)].map(([k, n]) => `${k} ${n}`).join(', ')})`);
    console.log(`  answers by kind   ${[...kinds].sort().map(([k, n]) => `${k}: ${n}`).join(', ')}`);
    console.log(`  503 messages      ${[...count(outcomes.filter((o) => o.status === 503), (o) => o.message ?? '')].map(([k, n]) => `${n}x "${k}"`).join('; ') || 'none'}`);
    console.log(`  stream errors     ${[...count(outcomes.filter((o) => o.streamError), (o) => o.streamError!.replace(/\d+/g, 'N'))].map(([k, n]) => `${n}x "${k}"`).join('; ') || 'none'}`);
    console.log(`  ingests           ${attempted.size} attempted, ${acknowledged.size} acknowledged, ${rows.length} stored`);
    console.log(`  chats             ${streams.length} streams, ${streams.filter((s) => s.done && !s.error).length} whole; turns ${turns.size}, ${interrupted} answers stored as interrupted`);
    console.log(`  wiki jobs         ${acceptedJobs.size} accepted, ${finalJobs.filter((j) => j.status === 'done').length} done, ${finalJobs.filter((j) => j.status === 'failed').length} failed (of ${finalJobs.length} recorded); OPS attempts ${finalJobs.find((j) => j.id === opsJob)?.attempts}`);
    console.log(`  recovery          server B ${(serverRecovery / 1000).toFixed(1)} s after SIGKILL (restart included); after PostgreSQL ${pgRecovery.map(seconds).join(' / ')}; after Redis ${redisRecovery.map(seconds).join(' / ')}; jobs settled ${seconds(jobsSettled)} after the load`);
    console.log(`  duration          ${at()} s`);
    console.log('');
    if (failures.length > 0) {
      const unique = [...count(failures, (f) => f)];
      console.log(`FAILED: ${failures.length} broken guarantees`);
      for (const [f, n] of unique.slice(0, 40)) console.log(`  - ${f}${n > 1 ? ` (x${n})` : ''}`);
      console.log(`logs: ${root}`);
      keep = true;
      return 1;
    }
    console.log('PASSED: every guarantee held');
    return 0;
  } finally {
    await Promise.all(procs.map((p) => (p.child.exitCode === null && p.child.signalCode === null ? kill(p, 'SIGTERM') : undefined)));
    await redis.stop().catch(() => undefined);
    await postgres?.stopQuietly();
    await claude.close();
    await confluence.close();
    if (!keep) await rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function count<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const map = new Map<string, number>();
  for (const item of items) map.set(key(item), (map.get(key(item)) ?? 0) + 1);
  return new Map([...map].sort((a, b) => b[1] - a[1]));
}

/** How long after now each server takes to answer a search (200) again. */
async function recovery(servers: string[], auth: Record<string, string>): Promise<number[]> {
  const from = Date.now();
  return Promise.all(
    servers.map(async (url) => {
      for (;;) {
        try {
          const res = await fetch(`${url}/api/v1/search`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({ query: 'menus', topK: 1 }),
            signal: AbortSignal.timeout(5_000),
          });
          if (res.ok) return Date.now() - from;
        } catch {
          // not yet
        }
        if (Date.now() - from > 60_000) return Number.POSITIVE_INFINITY;
        await sleep(100);
      }
    }),
  );
}

async function runCli(args: string[], env: Record<string, string>): Promise<string> {
  const cli = process.env.FAULTS_SOURCE === '1' ? ['--import', 'tsx', 'packages/cli/src/main.ts'] : ['--conditions=production', 'packages/cli/dist/main.js'];
  const child = spawn(process.execPath, [...cli, ...args], { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  await exited(child);
  if (child.exitCode !== 0) throw new Error(`kb ${args.join(' ')} failed: ${err}`);
  return out;
}

function guide(i: number): string {
  return [
    `# Guide ${i}`,
    '',
    '## Menus',
    '',
    `Menus list the pages of a site. Define a menu in the front matter of each page, or in the site configuration (${i}).`,
    '',
    '## Deployment',
    '',
    `Deploy the site by building it and copying the public folder to the web server. Step ${i} checks the result.`,
  ].join('\n');
}

/** A load document: the same shape (and so the same number of chunks) for every slug. */
function loadDocument(slug: string): string {
  return [`# ${slug}`, '', '## Setup', '', `Install ${slug} and configure it.`, '', '## Usage', '', `Run ${slug} against the deployment and read its report.`].join('\n');
}

process.exitCode = await main().catch(async (error: unknown) => {
  console.error(error);
  return 1;
});
// Anything still holding the event loop (a stuck socket) must not hold the CI step.
setTimeout(() => process.exit(), 2_000).unref();
