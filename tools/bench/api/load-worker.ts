/**
 * The worker thread of `npm run bench:api`'s load generator: runs {@link runLoad} on the plan it
 * is given (`workerData`) and posts `{ kind: 'measuring' }` when the measured period starts, then
 * `{ kind: 'done', outcome }`. A thread of its own has a heap of its own: the benchmark process
 * holds the events, the baseline and DuckDB (hundreds of MiB to GiB), and each of its major
 * collections paused the loop that read the answers (a 115 KB answer read at 2,883 req/s from a
 * clean process, 464 beside a 425 MiB heap, 286 beside 1.3 GiB).
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type LoadPlan, runLoad } from './load-loop.ts';

if (parentPort === null) throw new Error('load-worker.ts runs as a worker thread of load.ts');
const port = parentPort;
const outcome = await runLoad(
  workerData as LoadPlan,
  () => port.postMessage({ kind: 'measuring' }),
);
port.postMessage({ kind: 'done', outcome });
