/**
 * The engine's thread: parses and plans the texts it is sent, and runs plans over the rows sent
 * with them, one job at a time, answering each with its result or why not. Its owner
 * ({@link ./engine-thread.ts}) ends it when a job runs past its time limit (SQLite in WebAssembly
 * cannot be interrupted otherwise), and when a job leaves a WebAssembly module unfit for the next
 * (the parser failing inside itself, SQLite out of memory): a new thread starts from clean modules.
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type EngineAnswer, EngineOutOfMemory, EngineTrap, loadEngine, runPlan } from './engine.ts';
import { type PackedRows, unpackRows } from './packed-rows.ts';
import { loadParser, parseQuery, ParserFailure } from './parse-sql.ts';
import { SqlRefusal } from './sql-refusal.ts';
import { planQuery, type QueryPlan } from './translate.ts';

/** What the thread is started with. */
export interface EngineWorkerData {
  /** Most bytes of memory SQLite may use (its hard heap limit). */
  readonly heapBytes: number;
}

/** A job sent to the engine's thread. */
export type EngineJob =
  | { readonly id: number; readonly kind: 'plan'; readonly sql: string; readonly nowUs: number }
  | {
    readonly id: number;
    readonly kind: 'run';
    readonly plan: QueryPlan;
    readonly rows: PackedRows;
    readonly maxBytes: number;
  };

/** Said once by a new thread when its modules are loaded. */
export interface EngineReady {
  readonly ready: true;
}

/** What the engine's thread answers to a job. */
export type EngineReply =
  | {
    readonly id: number;
    readonly ok: true;
    readonly plan?: QueryPlan;
    readonly answer?: EngineAnswer;
  }
  | {
    readonly id: number;
    readonly ok: false;
    /** The caller's query is at fault (400), else the engine (500). */
    readonly refusal: boolean;
    readonly message: string;
    /** The thread is unfit for another job: end it. */
    readonly restart: boolean;
  };

const { heapBytes } = workerData as EngineWorkerData;

async function reply(job: EngineJob): Promise<EngineReply> {
  try {
    if (job.kind === 'plan') {
      return { id: job.id, ok: true, plan: planQuery(await parseQuery(job.sql), job.nowUs) };
    }
    const answer = await runPlan(job.plan, unpackRows(job.rows), {
      maxBytes: job.maxBytes,
      heapBytes,
    });
    return { id: job.id, ok: true, answer };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unfit = error instanceof ParserFailure || error instanceof EngineOutOfMemory ||
      error instanceof EngineTrap || error instanceof RangeError;
    return {
      id: job.id,
      ok: false,
      // A RangeError here is a text too long for this thread's heap, which the query made.
      refusal: error instanceof SqlRefusal || unfit,
      message: error instanceof RangeError ? `the query cannot run: ${message}` : message,
      restart: unfit || !(error instanceof SqlRefusal),
    };
  }
}

parentPort?.on('message', async (job: EngineJob) => {
  parentPort?.postMessage(await reply(job));
});

// Both modules loaded before the first job is taken: a job's time limit counts its own work only.
await loadParser();
await loadEngine();
parentPort?.postMessage({ ready: true } satisfies EngineReady);
