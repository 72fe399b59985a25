/**
 * The embedded engine on a thread of its own, so that a query neither holds the API's event loop
 * nor runs past its time limit: queries wait their turn here and run one at a time; one that
 * runs longer than the limit ends the thread (a new one starts for the next) and is refused with
 * a message that says what to change. Node and Deno both run it (`node:worker_threads`).
 *
 * @example
 * ```ts
 * const engine = new EngineThread(5_000);
 * await engine.run(plan, rows); // { rows: [...], truncated: false }
 * engine.close();
 * ```
 *
 * @module
 */
import { Worker } from 'node:worker_threads';
import type { EngineAnswer, TableRow } from './engine.ts';
import type { EngineJob, EngineReply } from './engine-worker.ts';
import { packRows } from './packed-rows.ts';
import { SqlRefusal, SqlTimeout } from './sql-refusal.ts';
import type { QueryPlan } from './translate.ts';

interface Waiting {
  readonly job: EngineJob;
  readonly resolve: (answer: EngineAnswer) => void;
  readonly reject: (error: Error) => void;
}

/** Runs plans on the engine's thread, each within `timeoutMs`. */
export class EngineThread {
  readonly #timeoutMs: number;
  readonly #queue: Waiting[] = [];
  #worker: Worker | null = null;
  #current: { readonly waiting: Waiting; readonly timer: ReturnType<typeof setTimeout> } | null =
    null;
  #nextId = 1;
  #closed = false;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * The answer of `plan` over `rows`.
   *
   * @throws {SqlRefusal} as {@link ./engine.ts} `runPlan`, or when the query runs past the limit.
   */
  run(plan: QueryPlan, rows: readonly TableRow[]): Promise<EngineAnswer> {
    if (this.#closed) return Promise.reject(new Error('the SQL engine is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({
        job: { id: this.#nextId++, plan, rows: packRows(rows) },
        resolve,
        reject,
      });
      this.#next();
    });
  }

  /** Ends the thread; queries not answered yet are refused. */
  close(): void {
    this.#closed = true;
    this.#stop(new Error('the SQL engine is closed'));
    for (const waiting of this.#queue.splice(0)) {
      waiting.reject(new Error('the SQL engine is closed'));
    }
  }

  #next(): void {
    if (this.#current !== null || this.#closed) return;
    const waiting = this.#queue.shift();
    if (waiting === undefined) return;
    const worker = this.#worker ?? this.#start();
    const timer = setTimeout(() => this.#timedOut(waiting), this.#timeoutMs);
    this.#current = { waiting, timer };
    worker.postMessage(waiting.job, [waiting.job.rows.bytes.buffer as ArrayBuffer]);
  }

  #start(): Worker {
    const worker = new Worker(new URL('./engine-worker.ts', import.meta.url));
    worker.unref();
    worker.on('message', (reply: EngineReply) => this.#settle(reply));
    worker.on('error', (error: Error) => {
      if (this.#worker === worker) this.#stop(new Error(`the SQL engine failed: ${error.message}`));
    });
    worker.on('exit', (code) => {
      if (this.#worker === worker) this.#stop(new Error(`the SQL engine stopped (exit ${code})`));
    });
    this.#worker = worker;
    return worker;
  }

  #settle(reply: EngineReply): void {
    const current = this.#current;
    if (current === null || current.waiting.job.id !== reply.id) return;
    clearTimeout(current.timer);
    this.#current = null;
    if (reply.ok) current.waiting.resolve(reply.answer);
    else {
      current.waiting.reject(
        reply.refusal ? new SqlRefusal(reply.message) : new Error(reply.message),
      );
    }
    this.#next();
  }

  #timedOut(waiting: Waiting): void {
    if (this.#current?.waiting !== waiting) return;
    this.#stop(
      new SqlTimeout(
        `the query ran longer than its limit of ${this.#timeoutMs} ms (LOGS_SQL_TIMEOUT_MS): ` +
          'narrow iso_timestamp_start and iso_timestamp_end, or simplify it',
      ),
    );
  }

  /** Ends the thread, refusing the query it runs with `reason`; the next query starts another. */
  #stop(reason: Error): void {
    const worker = this.#worker;
    this.#worker = null;
    if (worker !== null) void worker.terminate();
    const current = this.#current;
    this.#current = null;
    if (current !== null) {
      clearTimeout(current.timer);
      current.waiting.reject(reason);
    }
    this.#next();
  }
}
