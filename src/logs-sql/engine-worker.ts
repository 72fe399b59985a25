/**
 * The engine's thread: runs each plan it is sent over the rows sent with it, one at a time, and
 * answers with the rows or why not. Its owner ({@link ./engine-thread.ts}) ends it when a query
 * runs past its time limit: SQLite in WebAssembly cannot be interrupted otherwise.
 *
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { type EngineAnswer, runPlan } from './engine.ts';
import { type PackedRows, unpackRows } from './packed-rows.ts';
import { SqlRefusal } from './sql-refusal.ts';
import type { QueryPlan } from './translate.ts';

/** A query sent to the engine's thread. */
export interface EngineJob {
  readonly id: number;
  readonly plan: QueryPlan;
  readonly rows: PackedRows;
}

/** What the engine's thread answers to a job. */
export type EngineReply =
  | { readonly id: number; readonly ok: true; readonly answer: EngineAnswer }
  | {
    readonly id: number;
    readonly ok: false;
    readonly refusal: boolean;
    readonly message: string;
  };

parentPort?.on('message', async (job: EngineJob) => {
  let reply: EngineReply;
  try {
    reply = { id: job.id, ok: true, answer: await runPlan(job.plan, unpackRows(job.rows)) };
  } catch (error) {
    reply = {
      id: job.id,
      ok: false,
      refusal: error instanceof SqlRefusal,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  parentPort?.postMessage(reply);
});
