import { Worker } from 'node:worker_threads';
import type { SplitDocument } from '../ingestion/prepare.ts';
import { InvalidSpecError } from './errors.ts';
import type { OperationsResult } from './operations.ts';

/** Memory a spec's parse may use before the worker is stopped (alias or nesting bombs). */
const WORKER_HEAP_MB = 1024;

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; name: string; message: string };

type Request =
  | { kind: 'spec'; text: string; format: 'json' | 'yaml' }
  | { kind: 'prepare'; documents: Array<{ title: string; content: string }>; dimension: number | null };

interface Pending {
  kind: Request['kind'];
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** Documents split and embedded by the built-in embedder in the worker (see prepare.ts). */
export interface PreparedDocuments {
  documents: SplitDocument[];
  vectors: Float32Array;
}

/**
 * One long-lived worker thread that parses specs and renders their operations: a large YAML
 * spec takes over a second of synchronous parsing, which would stall every other request of the
 * server, and a pathological one must not be able to take the server's own heap down with it.
 * It also splits and embeds bulk loads' documents for the built-in embedder (CPU work the
 * server's thread would otherwise do between the database's replies).
 * Starting a worker (loading the parser and the renderer) costs about a second, so it is kept
 * and reused; requests queue in it. If a spec exhausts the worker's heap, that request (and any
 * spec queued behind it) fails as an invalid spec, queued document preparations fail (their
 * caller prepares them on its own thread), and the next request starts a fresh worker.
 */
class SpecWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead = false;

  constructor(onDeath: (self: SpecWorker) => void) {
    this.worker = new Worker(new URL('./render-worker.mjs', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    // An idle worker must not keep the process alive.
    this.worker.unref();
    this.worker.on('message', (message: Reply | { ready: true }) => {
      if (!('id' in message)) return;
      const request = this.pending.get(message.id);
      if (!request) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) this.worker.unref();
      if (message.ok) request.resolve(message.result);
      else if (message.name === 'InvalidSpecError') request.reject(new InvalidSpecError(message.message));
      else request.reject(new Error(`${request.kind === 'spec' ? 'Spec processing' : 'Preparing documents'} failed: ${message.message}`));
    });
    const fail = (reason: string) => {
      if (this.dead) return;
      this.dead = true;
      onDeath(this);
      // Out of memory or a stack overflow in the parser: the spec is what is wrong.
      for (const request of this.pending.values()) {
        request.reject(
          request.kind === 'spec'
            ? new InvalidSpecError(`the spec could not be processed within the service's limits (${reason})`)
            : new Error(`Preparing documents failed: the worker stopped (${reason})`),
        );
      }
      this.pending.clear();
    };
    this.worker.on('error', (error) => fail(error.message));
    this.worker.on('exit', (code) => fail(`exit ${code}`));
  }

  run(request: Request): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { kind: request.kind, resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, ...request });
    });
  }

  terminate(): Promise<number> {
    this.dead = true;
    return this.worker.terminate();
  }
}

let shared: SpecWorker | undefined;

function specWorker(): SpecWorker {
  if (!shared || shared.dead) {
    shared = new SpecWorker((self) => {
      if (shared === self) shared = undefined;
    });
  }
  return shared;
}

/** Parses a spec and renders its operations in the spec worker thread. */
export function operationsFromSpecText(text: string, format: 'json' | 'yaml'): Promise<OperationsResult> {
  return specWorker().run({ kind: 'spec', text, format }) as Promise<OperationsResult>;
}

/**
 * Splits documents and embeds their chunks with the built-in embedder of `dimension` (or only
 * splits them, for null: `vectors` is then empty), in the worker thread (the same results as
 * prepare.ts's prepareDocuments on this thread).
 */
export function prepareDocumentsOffThread(
  documents: Array<{ title: string; content: string }>,
  dimension: number | null,
): Promise<PreparedDocuments> {
  return specWorker().run({ kind: 'prepare', documents, dimension }) as Promise<PreparedDocuments>;
}

/** Starts the spec worker ahead of the first spec (a server does at start). */
export function warmUpSpecWorker(): void {
  specWorker();
}

/** Stops the spec worker (tests, shutdown); the next spec starts a new one. */
export async function stopSpecWorker(): Promise<void> {
  const worker = shared;
  shared = undefined;
  await worker?.terminate();
}
