/**
 * The SQL engine on a thread of its own ({@link ./engine-worker.ts}): the parser and SQLite, both
 * WebAssembly, neither hold the API's event loop nor outlive a failure. Jobs (a plan, a run) wait
 * their turn and go one at a time; one that runs past the time limit ends the thread and is
 * refused with a message saying what to change, and a job that leaves a module unfit for the
 * next (the parser trapping, SQLite out of memory) ends it too. The next job starts a new thread.
 * Node and Deno both run it (`node:worker_threads`).
 *
 * @example
 * ```ts
 * const engine = new EngineThread({ timeoutMs: 5_000, heapBytes: 320 * 1_048_576 });
 * const plan = await engine.plan('select count(*) as n from auth_logs', nowUs);
 * await engine.run(plan, rows, 2_097_152); // { rows: [{ n: 12 }], truncated: false }
 * engine.close();
 * ```
 *
 * @module
 */
import { Worker } from 'node:worker_threads';
import type { EngineAnswer, TableRow } from './engine.ts';
import type { EngineJob, EngineReady, EngineReply, EngineWorkerData } from './engine-worker.ts';
import { packRows } from './packed-rows.ts';
import type { SqlEngine } from './sql-engine.ts';
import { SqlRefusal, SqlTimeout } from './sql-refusal.ts';
import type { QueryPlan } from './translate.ts';

/** The engine thread's bounds. */
export interface EngineThreadOptions {
  /** Longest one job may run, in ms. */
  readonly timeoutMs: number;
  /** Most bytes of memory SQLite may use. */
  readonly heapBytes: number;
}

interface Waiting {
  readonly job: EngineJob;
  readonly settle: (reply: EngineReply) => void;
  readonly reject: (error: Error) => void;
}

/** Plans and runs queries on the engine's thread, each job within the time limit. */
export class EngineThread implements SqlEngine {
  readonly #options: EngineThreadOptions;
  readonly #queue: Waiting[] = [];
  #worker: Worker | null = null;
  /** Whether {@link #worker} has loaded its modules: jobs are sent, and timed, only then. */
  #ready = false;
  #current: { readonly waiting: Waiting; readonly timer: ReturnType<typeof setTimeout> } | null =
    null;
  #nextId = 1;
  #closed = false;

  constructor(options: EngineThreadOptions) {
    this.#options = options;
  }

  async plan(sql: string, nowUs: number): Promise<QueryPlan> {
    const reply = await this.#submit({ id: this.#nextId++, kind: 'plan', sql, nowUs });
    if (reply.plan === undefined) throw new Error('the SQL engine answered a plan without one');
    return reply.plan;
  }

  /** Not async: once packed, the caller's rows (and the store's buffers) are free to go. */
  run(plan: QueryPlan, rows: readonly TableRow[], maxBytes: number): Promise<EngineAnswer> {
    const job: EngineJob = {
      id: this.#nextId++,
      kind: 'run',
      plan,
      rows: packRows(rows),
      maxBytes,
    };
    return this.#submit(job).then((reply) => {
      if (reply.answer === undefined) throw new Error('the SQL engine answered a run without rows');
      return reply.answer;
    });
  }

  /** Ends the thread; jobs not answered yet are refused. */
  close(): void {
    this.#closed = true;
    this.#stop(new Error('the SQL engine is closed'));
    for (const waiting of this.#queue.splice(0)) {
      waiting.reject(new Error('the SQL engine is closed'));
    }
  }

  #submit(job: EngineJob): Promise<Extract<EngineReply, { ok: true }>> {
    if (this.#closed) return Promise.reject(new Error('the SQL engine is closed'));
    return new Promise((resolve, reject) => {
      const settle = (reply: EngineReply) => {
        if (reply.ok) resolve(reply);
        else reject(reply.refusal ? new SqlRefusal(reply.message) : new Error(reply.message));
      };
      this.#queue.push({ job, settle, reject });
      this.#next();
    });
  }

  #next(): void {
    if (this.#current !== null || this.#closed || this.#queue.length === 0) return;
    let worker: Worker;
    try {
      worker = this.#worker ?? this.#start();
    } catch (error) {
      this.#refuseAll(new Error(`the SQL engine could not start: ${messageOf(error)}`));
      return;
    }
    // A new thread says when its modules are loaded (`#settle`), then takes its first job.
    if (!this.#ready) return;
    const waiting = this.#queue.shift() as Waiting;
    const timer = setTimeout(() => this.#timedOut(waiting), this.#options.timeoutMs);
    this.#current = { waiting, timer };
    try {
      const transfer = waiting.job.kind === 'run'
        ? [waiting.job.rows.bytes.buffer as ArrayBuffer]
        : [];
      worker.postMessage(waiting.job, transfer);
    } catch (error) {
      clearTimeout(timer);
      this.#current = null;
      waiting.reject(new Error(`the SQL engine could not take the query: ${messageOf(error)}`));
      this.#next();
    }
  }

  /** Refuses every job waiting (a thread that cannot start would fail each the same way). */
  #refuseAll(reason: Error): void {
    for (const waiting of this.#queue.splice(0)) waiting.reject(reason);
  }

  #start(): Worker {
    const workerData: EngineWorkerData = { heapBytes: this.#options.heapBytes };
    const worker = new Worker(new URL('./engine-worker.ts', import.meta.url), {
      workerData,
      // Its JS heap holds one job's rows and answer; SQLite's memory is bounded by heapBytes.
      resourceLimits: {
        maxOldGenerationSizeMb: 256 + Math.ceil(this.#options.heapBytes / 1_048_576),
      },
    });
    worker.unref();
    worker.on('message', (reply: EngineReply | EngineReady) => this.#settle(worker, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      if (this.#worker !== worker) return;
      // Its JS heap past `resourceLimits`: the query's rows or answer, which the caller can narrow.
      this.#stop(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new SqlRefusal(
            'the query needs more memory than the engine has: narrow iso_timestamp_start and ' +
              'iso_timestamp_end, or select less',
          )
          : new Error(`the SQL engine failed: ${error.message}`),
      );
    });
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#stop(new Error(`the SQL engine stopped (exit ${code})`));
    });
    this.#worker = worker;
    this.#ready = false;
    return worker;
  }

  #settle(worker: Worker, reply: EngineReply | EngineReady): void {
    if ('ready' in reply) {
      if (this.#worker === worker) {
        this.#ready = true;
        this.#next();
      }
      return;
    }
    const current = this.#current;
    if (current === null || current.waiting.job.id !== reply.id) return;
    clearTimeout(current.timer);
    this.#current = null;
    if (!reply.ok && reply.restart && this.#worker === worker) {
      this.#worker = null;
      void worker.terminate();
    }
    current.waiting.settle(reply);
    this.#next();
  }

  #timedOut(waiting: Waiting): void {
    if (this.#current?.waiting !== waiting) return;
    this.#stop(
      new SqlTimeout(
        `the query ran longer than its limit of ${this.#options.timeoutMs} ms ` +
          '(LOGS_SQL_TIMEOUT_MS): narrow iso_timestamp_start and iso_timestamp_end, or simplify it',
      ),
    );
  }

  /** Ends the thread, refusing the job it runs with `reason`; the next job starts another. */
  #stop(reason: Error): void {
    const worker = this.#worker;
    const started = this.#ready;
    this.#worker = null;
    this.#ready = false;
    if (worker !== null) void worker.terminate();
    // A thread that failed before it was ready would fail the next the same way: refuse them.
    if (worker !== null && !started) this.#refuseAll(reason);
    const current = this.#current;
    this.#current = null;
    if (current !== null) {
      clearTimeout(current.timer);
      current.waiting.reject(reason);
    }
    this.#next();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
