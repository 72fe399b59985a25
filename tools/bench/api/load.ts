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
 * @module
 */
import { Pool } from 'undici';
import { nearestRank } from '../../nearest-rank.ts';

/** Options of {@link drive}. */
export interface DriveOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Paths with query strings, taken in turn. */
  readonly paths: readonly string[];
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** Open loop at this many requests per second; absent: closed loop. */
  readonly ratePerSecond?: number;
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
  const pool = new Pool(options.url, {
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const measureFrom = started + options.warmupSeconds * 1000;
  const stopAt = measureFrom + options.seconds * 1000;
  const meters = [new CpuMeter(options.serverCpuSeconds), new CpuMeter(options.storeCpuSeconds)];
  const cpuTimer = setTimeout(
    () => meters.forEach((meter) => meter.start()),
    measureFrom - started,
  );
  /** Sends one request; `since` is when it counts from (sent, or scheduled). */
  const send = async (since: number) => {
    const path = options.paths[next++ % options.paths.length] ?? '/';
    let status = 0;
    try {
      const response = await pool.request({ path, method: 'GET', headers: options.headers });
      status = response.statusCode;
      await response.body.text();
    } catch (error) {
      // A transport failure is counted as status 0, not thrown: the run goes on.
      if (!(error instanceof Error)) throw error;
    }
    if (since < measureFrom) return;
    latencies.push(performance.now() - since);
    if (status !== 200) failures[String(status)] = (failures[String(status)] ?? 0) + 1;
  };
  const rate = options.ratePerSecond;
  if (rate === undefined) {
    const worker = async () => {
      for (let sent = performance.now(); sent < stopAt; sent = performance.now()) await send(sent);
    };
    await Promise.all(Array.from({ length: options.connections }, worker));
  } else {
    const inFlight = new Set<Promise<void>>();
    for (let i = 0;; i++) {
      const scheduled = started + (i * 1000) / rate;
      if (scheduled >= stopAt) break;
      const wait = scheduled - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      // Latency counts from the scheduled time when sending late (no coordinated omission),
      // and from the send itself when the timer let it go a little early.
      const request = send(Math.min(scheduled, performance.now())).finally(() =>
        inFlight.delete(request)
      );
      inFlight.add(request);
    }
    await Promise.all(inFlight);
  }
  clearTimeout(cpuTimer);
  const [serverCpu, storeCpu] = meters.map((meter) => meter.perRequest(latencies.length));
  await pool.close();
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
