import { Worker } from 'node:worker_threads';
import { TASKS, type TaskInput, type TaskName, type TaskOutput } from './tasks.ts';

/**
 * The thread's entry: the compiled thread.js beside this file in a build, else a shim that loads
 * thread.ts through tsx (worker threads do not inherit a test runner's TypeScript loader).
 */
const THREAD_ENTRY = new URL(import.meta.url.endsWith('.ts') ? './worker.mjs' : './thread.js', import.meta.url);

/** Memory a task may use before the worker is stopped (a spec's alias or nesting bomb). */
const WORKER_HEAP_MB = 1024;

/** How long an idle worker is kept for the next task before it stops. */
const WORKER_IDLE_MS = 30_000;

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

  constructor(heapMb: number, onDeath: (self: TaskWorker) => void, onIdle: (self: TaskWorker) => void) {
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
      if (this.pending.size === 0) {
        this.worker.unref();
        onIdle(this);
      }
      if (message.ok) request.resolve(message.result);
      else request.reject(TASKS[request.task].failed(message.name, message.message));
    });
    this.onDeath = onDeath;
    this.worker.on('error', (error) => this.fail(error.message));
    this.worker.on('exit', (code) => this.fail(`exit ${code}`));
  }

  private readonly onDeath: (self: TaskWorker) => void;

  /** Fails every request not answered yet, once, as its task says. */
  private fail(reason: string): void {
    if (this.dead) return;
    this.dead = true;
    this.onDeath(this);
    for (const request of this.pending.values()) request.reject(TASKS[request.task].stopped(reason));
    this.pending.clear();
  }

  get idle(): boolean {
    return this.pending.size === 0;
  }

  run(task: TaskName, input: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { task, resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, task, input });
    });
  }

  /** Stops the thread; requests it had not answered fail as stopped (for `reason`). */
  terminate(reason = 'the worker was stopped'): Promise<number> {
    this.fail(reason);
    return this.worker.terminate();
  }
}

/**
 * Runs the tasks of tasks.ts in a worker thread: CPU work that would otherwise hold the caller's
 * thread (and every request it serves) for seconds, such as parsing a large YAML spec, or
 * splitting and embedding a bulk load's documents for the built-in embedder; and work a
 * pathological input must not be able to take the caller's heap down with.
 *
 * The worker starts with the first task (loading the parsers and renderers costs about a second)
 * and is reused while tasks keep coming; `idleMs` after its last task it stops, giving its
 * memory back (20-40 MB resident), and the next task starts a new one. Requests queue in it, and
 * an idle worker does not keep the process alive. If a task exhausts the worker's heap, that
 * request and every one queued behind it fail as their task says (a spec as an invalid spec; a
 * preparation with an error, so that its caller prepares the documents on its own thread), and
 * the next request starts a fresh worker.
 */
export class TaskPool {
  private worker: TaskWorker | undefined;
  private idleTimer: NodeJS.Timeout | undefined;

  /** The run before this one, in a serial pool. */
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * @param options.serial one task at a time: a task that takes the worker down (a crash, its
   *   heap, its time) fails alone, none queued behind it in the same thread.
   * @param options.timeoutMs how long a task may run (serial pools): past it the worker is
   *   stopped and the task fails as its task says, with the reason.
   */
  constructor(private readonly options: { heapMb?: number; idleMs?: number; serial?: boolean; timeoutMs?: number } = {}) {}

  private current(): TaskWorker {
    clearTimeout(this.idleTimer);
    if (!this.worker || this.worker.dead) {
      this.worker = new TaskWorker(
        this.options.heapMb ?? WORKER_HEAP_MB,
        (self) => {
          if (this.worker === self) this.worker = undefined;
        },
        (self) => {
          clearTimeout(this.idleTimer);
          this.idleTimer = setTimeout(() => {
            if (this.worker === self && self.idle) void this.stop();
          }, this.options.idleMs ?? WORKER_IDLE_MS).unref();
        },
      );
    }
    return this.worker;
  }

  run<Name extends TaskName>(task: Name, input: TaskInput<Name>): Promise<TaskOutput<Name>> {
    if (!this.options.serial) return this.current().run(task, input) as Promise<TaskOutput<Name>>;
    const run = this.queue.then(() => this.runBounded(task, input));
    this.queue = run.catch(() => undefined);
    return run as Promise<TaskOutput<Name>>;
  }

  /** One task alone in the worker, stopped past the pool's time limit. */
  private async runBounded(task: TaskName, input: unknown): Promise<unknown> {
    const worker = this.current();
    const timeoutMs = this.options.timeoutMs;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            if (this.worker === worker) this.worker = undefined;
            void worker.terminate(`no result within ${Math.round(timeoutMs / 1000)} s`);
          }, timeoutMs);
    try {
      return await worker.run(task, input);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether a worker thread is running. */
  get running(): boolean {
    return this.worker !== undefined && !this.worker.dead;
  }

  /** Stops the worker (idle, tests, shutdown); the next task starts a new one. */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

const shared = new TaskPool();

/** Heap a file's conversion may use (a PDF's pages, a Word file's XML tree). */
export const FILE_WORKER_HEAP_MB = 512;
/** Time a file's conversion may take: a 500-page PDF takes 2-3 s on a busy 2-core machine. */
export const FILE_CONVERSION_TIMEOUT_MS = 60_000;

/**
 * The pool files are converted in: a thread of its own, one file at a time, each bounded in
 * memory and time, so that a file that crashes or hangs a parser costs that file alone.
 */
const files = new TaskPool({ heapMb: FILE_WORKER_HEAP_MB, serial: true, timeoutMs: FILE_CONVERSION_TIMEOUT_MS });

/** Runs a task in the process's worker pool: `runTask('parseSpec', { text, format })`. */
export function runTask<Name extends TaskName>(task: Name, input: TaskInput<Name>): Promise<TaskOutput<Name>> {
  return shared.run(task, input);
}

/** Converts a file to Markdown in the files pool (see `files`): a FileConversionError when it cannot be. */
export function convertFileOffThread(input: TaskInput<'convertFile'>): Promise<TaskOutput<'convertFile'>> {
  return files.run('convertFile', input);
}

/** Stops the process's workers (tests, shutdown); the next task starts a new one. */
export async function stopWorkerPool(): Promise<void> {
  await Promise.all([shared.stop(), files.stop()]);
}
