/**
 * The load generator of `npm run bench:api`, over a pool of keep-alive connections (undici, no
 * pipelining), for a bounded time after a warm-up, in one of two modes:
 *
 * - closed loop (`ratePerSecond` absent): every connection sends its next request as soon as the
 *   previous answer is read: the most the server answers (its saturation throughput);
 * - open loop (`ratePerSecond` given): requests are sent on a fixed schedule whatever the
 *   answers do, and latency is measured from each request's scheduled time (no coordinated
 *   omission): the latency a client sees at that rate.
 *
 * The requests are sent and read by a worker thread ({@link ./load-worker.ts}), away from the
 * heap of the benchmark's own process; this thread reads the CPU meters when it says the
 * measured period starts and when it ends.
 *
 * @module
 */
import { Worker } from 'node:worker_threads';
import { nearestRank } from '../../nearest-rank.ts';
import type { LoadOutcome, LoadPlan } from './load-loop.ts';

/** Options of {@link drive}. */
export interface DriveOptions extends LoadPlan {
  /** CPU seconds the server has used so far (null: unknown), read when measuring starts and ends. */
  readonly serverCpuSeconds?: () => number | null;
  /** The same for the store the server reads (Redis), when it runs on this machine. */
  readonly storeCpuSeconds?: () => number | null;
}

/** What one run measured. */
export interface DriveResult {
  readonly requests: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Answers other than 200, by status (0 = transport error). */
  readonly failures: Readonly<Record<string, number>>;
  /** The server's CPU time per measured request, in µs (null: not asked for, or unknown). */
  readonly serverCpuUsPerRequest: number | null;
  /** The store's CPU time per measured request, in µs (null: not asked for, or unknown). */
  readonly storeCpuUsPerRequest: number | null;
}

/** A process's CPU time over the measured period, per request. */
class CpuMeter {
  readonly #read: () => number | null;
  #atStart: number | null = null;

  constructor(read: (() => number | null) | undefined) {
    this.#read = read ?? (() => null);
  }

  start(): void {
    this.#atStart = this.#read();
  }

  /** µs per request since {@link start} (null: unknown, or no request measured). */
  perRequest(requests: number): number | null {
    const atEnd = this.#read();
    if (this.#atStart === null || atEnd === null || requests === 0) return null;
    return ((atEnd - this.#atStart) * 1e6) / requests;
  }
}

/** Drives `options.url` and reports throughput and latency of the measured period. */
export async function drive(options: DriveOptions): Promise<DriveResult> {
  const { serverCpuSeconds, storeCpuSeconds, ...plan } = options;
  const meters = [new CpuMeter(serverCpuSeconds), new CpuMeter(storeCpuSeconds)];
  const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: plan });
  const { latencies, failures } = await new Promise<LoadOutcome>((resolve, reject) => {
    worker.on(
      'message',
      (message: { kind: 'measuring' } | { kind: 'done'; outcome: LoadOutcome }) => {
        if (message.kind === 'measuring') meters.forEach((meter) => meter.start());
        else resolve(message.outcome);
      },
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the load worker exited (${code}) early`)));
  });
  const [serverCpu, storeCpu] = meters.map((meter) => meter.perRequest(latencies.length));
  await worker.terminate();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    perSecond: latencies.length / options.seconds,
    p50Ms: nearestRank(latencies, 0.5),
    p99Ms: nearestRank(latencies, 0.99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    failures,
    serverCpuUsPerRequest: serverCpu ?? null,
    storeCpuUsPerRequest: storeCpu ?? null,
  };
}
