/**
 * Where the HTTP server's refusals go: each one is counted in `/metrics` at once, and the log
 * hears of them sparingly. An attack is thousands of refusals a second; one line each would be
 * a second attack, on the log. So the first refusal is logged when it happens, and then at most
 * one line per `logEveryMs`, with the refusals since the last line by reason. Never the client's
 * address: the metrics and the log say what happened, not to whom.
 *
 * @module
 */
import type { Logger } from '../src/logger.ts';
import type { Refusal } from './refusals.ts';
import type { ApiMetrics } from './metrics.ts';

/** Options of {@link refusalReporter}. */
export interface RefusalReporterOptions {
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  /** The clock, in Unix ms. */
  readonly nowMs: () => number;
  /** Least time between two log lines, in ms. Default 30,000. */
  readonly logEveryMs?: number;
}

/**
 * A function to tell of each refusal (the adapters' `onRefusal`).
 *
 * @example
 * ```ts
 * const onRefusal = refusalReporter({ metrics, logger, nowMs: () => Date.now() });
 * await serve(api.fetch, { hostname, port, limits, onRefusal });
 * ```
 */
export function refusalReporter(options: RefusalReporterOptions): (reason: Refusal) => void {
  const logEveryMs = options.logEveryMs ?? 30_000;
  let lastLogged = Number.NEGATIVE_INFINITY;
  let since: Partial<Record<Refusal, number>> = {};
  return (reason) => {
    options.metrics.countRefused(reason);
    since[reason] = (since[reason] ?? 0) + 1;
    const now = options.nowMs();
    if (now - lastLogged < logEveryMs) return;
    const over = Number.isFinite(lastLogged)
      ? { overSeconds: Math.round((now - lastLogged) / 1000) }
      : {};
    options.logger.warn(
      { refused: since, ...over },
      'connections or requests refused by the HTTP server (by reason; counted in ' +
        `http_refused_total; at most one line per ${Math.round(logEveryMs / 1000)} s)`,
    );
    lastLogged = now;
    since = {};
  };
}
