/**
 * The metrics of live answers, on the API's registry: open streams and watched answers, pushes,
 * computations, signals heard, streams refused and ended by reason. Labels are fixed words only.
 *
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { StreamEnd } from './event-stream.ts';

/** What live answers count. */
export interface LiveMetrics {
  countPush(streams: number): void;
  countRecompute(): void;
  countRecomputeFailure(): void;
  countSignal(): void;
  countSubscribeFailure(): void;
  countRefused(): void;
  countEnd(why: StreamEnd): void;
}

/** The metrics on `registry`; `open` and `watched` are read when scraped. */
export function liveMetrics(
  registry: Registry,
  gauges: { readonly open: () => number; readonly watched: () => number },
): LiveMetrics {
  new Gauge({
    name: 'api_live_streams',
    help: 'Live answer streams open on this API process.',
    registers: [registry],
    collect() {
      this.set(gauges.open());
    },
  });
  new Gauge({
    name: 'api_live_watched_answers',
    help: 'Distinct answers (endpoint and parameters) the open live streams watch.',
    registers: [registry],
    collect() {
      this.set(gauges.watched());
    },
  });
  const pushes = new Counter({
    name: 'api_live_pushes_total',
    help: 'Answers sent to live streams because they changed (one per stream sent to).',
    registers: [registry],
  });
  const recomputes = new Counter({
    name: 'api_live_recomputes_total',
    help:
      'Watched answers computed again (after a signalled commit or a window slide), by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const signals = new Counter({
    name: 'api_live_signals_total',
    help: 'Commit signals heard for watched answers (gathered per LIVE_COALESCE_MS).',
    registers: [registry],
  });
  const subscribeFailures = new Counter({
    name: 'api_live_subscribe_failures_total',
    help: "Watches that could not subscribe to their project's changes (refreshed by slides only).",
    registers: [registry],
  });
  const refused = new Counter({
    name: 'api_live_refused_total',
    help: 'Live streams refused 429 by LIVE_MAX_STREAMS, _PER_KEY or _PER_ADDRESS.',
    registers: [registry],
  });
  const ended = new Counter({
    name: 'api_live_ended_total',
    help:
      'Live streams ended, by reason: client (it went away), slow_reader (cut: it did not take ' +
      'its answers), shutdown (the process stopped).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const outcome of ['ok', 'failed']) recomputes.inc({ outcome }, 0);
  for (const reason of ['client', 'slow_reader', 'shutdown']) ended.inc({ reason }, 0);
  return {
    countPush: (streams) => pushes.inc(streams),
    countRecompute: () => recomputes.inc({ outcome: 'ok' }),
    countRecomputeFailure: () => recomputes.inc({ outcome: 'failed' }),
    countSignal: () => signals.inc(),
    countSubscribeFailure: () => subscribeFailures.inc(),
    countRefused: () => refused.inc(),
    countEnd: (why) => ended.inc({ reason: why }),
  };
}
