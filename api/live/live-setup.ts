/**
 * The live answers of one API process, made from its settings: the watches, the caps, the
 * metrics, and the end of every stream when the process stops.
 *
 * @module
 */
import { DEFAULT_LIVE, type LiveConfig } from '../../src/config/live.ts';
import type { AddressSource } from '../../src/config/http.ts';
import type { Logger } from '../../src/logger.ts';
import type { ChangeFeed } from '../../src/store/changes.ts';
import type { Answerer } from '../answer/answer.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { EventStream } from './event-stream.ts';
import { LiveAnswers } from './live-answers.ts';
import type { EndpointRecord } from '../../src/contract/registry.ts';
import { liveMetrics } from './live-metrics.ts';
import type { LiveRouteDeps } from './live-route.ts';
import { StreamCaps } from './stream-caps.ts';

/** What {@link createLive} makes: the route's parts (null: live answers are off) and the stop. */
export interface Live {
  readonly route: LiveRouteDeps | null;
  /** Ends every open stream and stops every watch. */
  close(): void;
}

/** The live answers of the API, or none when `LIVE_MAX_STREAMS` is 0. */
export function createLive(deps: {
  readonly settings: Partial<LiveConfig>;
  readonly answer: Answerer;
  readonly changes: ChangeFeed | null;
  readonly nowMs: () => number;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  readonly answerMaxBytes: number;
  readonly addressFrom: AddressSource;
  /** See `LiveAnswersOptions.beforeSignalled`. */
  readonly beforeSignalled?: (record: EndpointRecord) => void;
}): Live {
  const { settings } = deps;
  const total = settings.liveMaxStreams ?? DEFAULT_LIVE.maxStreams;
  if (total === 0) return { route: null, close: () => undefined };
  const caps = new StreamCaps({
    total,
    perKey: settings.liveMaxStreamsPerKey ?? DEFAULT_LIVE.maxStreamsPerKey,
    perAddress: settings.liveMaxStreamsPerAddress ?? DEFAULT_LIVE.maxStreamsPerAddress,
  });
  const open = new Set<EventStream>();
  let live: LiveAnswers | null = null;
  const metrics = liveMetrics(deps.metrics.registry, {
    open: () => caps.open,
    watched: () => live?.watched ?? 0,
  });
  live = new LiveAnswers({
    answer: deps.answer,
    changes: deps.changes,
    nowMs: deps.nowMs,
    coalesceMs: settings.liveCoalesceMs ?? DEFAULT_LIVE.coalesceMs,
    metrics,
    logger: deps.logger,
    ...(deps.beforeSignalled === undefined ? {} : { beforeSignalled: deps.beforeSignalled }),
  });
  const watches = live;
  // One timer for every stream's heartbeat: a timer per stream would be thousands.
  const heartbeat = setInterval(() => {
    for (const stream of open) stream.heartbeat();
  }, settings.liveHeartbeatMs ?? DEFAULT_LIVE.heartbeatMs);
  if (typeof heartbeat === 'object' && 'unref' in heartbeat) heartbeat.unref();
  return {
    route: {
      live: watches,
      caps,
      metrics,
      // Two whole answers: one being read, the next waiting.
      maxBufferedBytes: 2 * deps.answerMaxBytes,
      addressFrom: deps.addressFrom,
      open,
      reconnectMs: () => reconnectDelayMs(Math.random),
    },
    close: () => {
      clearInterval(heartbeat);
      for (const stream of [...open]) stream.close();
      watches.close();
    },
  };
}

/** The shortest and longest delay a client is told to wait before it reconnects, in ms. */
export const RECONNECT_MS = { min: 1_000, max: 10_000 } as const;

/**
 * A stream's reconnection delay, spread over {@link RECONNECT_MS}: when a process stops, its
 * streams' clients come back over 9 s rather than all at once. A burst of streams opening
 * together costs the API far more memory than the same streams opening over seconds (5,000
 * streams: 380 MiB growing to 535 under pushes, against 328 flat when opened 500 a second;
 * docs/benchmarks-history.md, "Live answers: a stream's memory, issue 53").
 */
export function reconnectDelayMs(random: () => number): number {
  return RECONNECT_MS.min + Math.floor(random() * (RECONNECT_MS.max - RECONNECT_MS.min));
}
