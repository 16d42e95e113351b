import { Worker } from 'node:worker_threads';
import { TASKS, type TaskInput, type TaskName, type TaskOutput } from './tasks.ts';

/**
 * The thread's entry: the compiled thread.js beside this file in a build, else a shim that loads
 * thread.ts through tsx (worker threads do not inherit a test runner's TypeScript loader).
 */
const THREAD_ENTRY = new URL(import.meta.url.endsWith('.ts') ? './worker.mjs' : './thread.js', import.meta.url);

/** Memory a task may use before the worker is stopped (a spec's alias or nesting bomb). */
const WORKER_HEAP_MB = 1024;

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; name: string; message: string };

interface Pending {
  task: TaskName;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** One worker thread and the requests it has not answered yet. */
class TaskWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  dead = false;

  constructor(heapMb: number, onDeath: (self: TaskWorker) => void) {
    this.worker = new Worker(THREAD_ENTRY, {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
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
      else request.reject(TASKS[request.task].failed(message.name, message.message));
    });
    const fail = (reason: string) => {
      if (this.dead) return;
      this.dead = true;
      onDeath(this);
      for (const request of this.pending.values()) request.reject(TASKS[request.task].stopped(reason));
      this.pending.clear();
    };
    this.worker.on('error', (error) => fail(error.message));
    this.worker.on('exit', (code) => fail(`exit ${code}`));
  }

  run(task: TaskName, input: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { task, resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, task, input });
    });
  }

  terminate(): Promise<number> {
    this.dead = true;
    return this.worker.terminate();
  }
}

/**
 * Runs the tasks of tasks.ts in one long-lived worker thread: CPU work that would otherwise hold
 * the caller's thread (and every request it serves) for seconds, such as parsing a large YAML
 * spec, or splitting and embedding a bulk load's documents for the built-in embedder; and work a
 * pathological input must not be able to take the caller's heap down with.
 *
 * Starting a worker (loading the parsers and renderers) costs about a second, so it is kept and
 * reused; requests queue in it, and an idle worker does not keep the process alive. If a task
 * exhausts the worker's heap, that request and every one queued behind it fail as their task
 * says (a spec as an invalid spec; a preparation with an error, so that its caller prepares the
 * documents on its own thread), and the next request starts a fresh worker.
 */
export class TaskPool {
  private worker: TaskWorker | undefined;

  constructor(private readonly options: { heapMb?: number } = {}) {}

  private current(): TaskWorker {
    if (!this.worker || this.worker.dead) {
      this.worker = new TaskWorker(this.options.heapMb ?? WORKER_HEAP_MB, (self) => {
        if (this.worker === self) this.worker = undefined;
      });
    }
    return this.worker;
  }

  run<Name extends TaskName>(task: Name, input: TaskInput<Name>): Promise<TaskOutput<Name>> {
    return this.current().run(task, input) as Promise<TaskOutput<Name>>;
  }

  /** Starts the worker ahead of the first task. */
  warmUp(): void {
    this.current();
  }

  /** Stops the worker (tests, shutdown); the next task starts a new one. */
  async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

const shared = new TaskPool();

/** Runs a task in the process's worker pool: `runTask('parseSpec', { text, format })`. */
export function runTask<Name extends TaskName>(task: Name, input: TaskInput<Name>): Promise<TaskOutput<Name>> {
  return shared.run(task, input);
}

/** Starts the process's worker ahead of the first task (a server does at start). */
export function warmUpWorkerPool(): void {
  shared.warmUp();
}

/** Stops the process's worker (tests, shutdown); the next task starts a new one. */
export function stopWorkerPool(): Promise<void> {
  return shared.stop();
}
