/**
 * The request loop of `npm run bench:api`'s load generator ({@link ./load.ts}), run in a worker
 * thread of its own ({@link ./load-worker.ts}): over a pool of keep-alive connections (undici,
 * no pipelining), for a bounded time after a warm-up, closed or open loop.
 *
 * @module
 */
import { Pool } from 'undici';

/** What the loop is asked to do: plain data, as it crosses to the worker. */
export interface LoadPlan {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Paths with query strings, taken in turn. */
  readonly paths: readonly string[];
  readonly connections: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  /** Open loop at this many requests per second; absent: closed loop. */
  readonly ratePerSecond?: number;
}

/** What the loop saw over the measured period. */
export interface LoadOutcome {
  /** Latency of every measured request, in ms, in the order they ended. */
  readonly latencies: number[];
  /** Answers other than 200, by status (0 = transport error). */
  readonly failures: Record<string, number>;
}

/**
 * Drives `plan.url`; calls `onMeasuring` when the warm-up ends and the measured period starts.
 *
 * @example
 * ```ts
 * const { latencies } = await runLoad({ url, headers: {}, paths: ['/'], connections: 8, seconds: 5, warmupSeconds: 1 }, () => {});
 * ```
 */
export async function runLoad(plan: LoadPlan, onMeasuring: () => void): Promise<LoadOutcome> {
  const pool = new Pool(plan.url, {
    connections: plan.connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  const latencies: number[] = [];
  const failures: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const measureFrom = started + plan.warmupSeconds * 1000;
  const stopAt = measureFrom + plan.seconds * 1000;
  const measuring = setTimeout(onMeasuring, measureFrom - started);
  /** Sends one request; `since` is when it counts from (sent, or scheduled). */
  const send = async (since: number) => {
    const path = plan.paths[next++ % plan.paths.length] ?? '/';
    let status = 0;
    try {
      const response = await pool.request({ path, method: 'GET', headers: plan.headers });
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
  const rate = plan.ratePerSecond;
  if (rate === undefined) {
    const worker = async () => {
      for (let sent = performance.now(); sent < stopAt; sent = performance.now()) await send(sent);
    };
    await Promise.all(Array.from({ length: plan.connections }, worker));
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
  clearTimeout(measuring);
  await pool.close();
  return { latencies, failures };
}
