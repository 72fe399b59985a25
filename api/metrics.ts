/**
 * Prometheus metrics of the API (prom-client, one registry per app): requests and their
 * latency per endpoint and status, and ingested events per source and outcome. Labels carry
 * endpoint names, route names and status codes only: never parameters, projects or keys, so
 * `/metrics` tells nothing about the data and its cardinality stays bounded.
 *
 * @module
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Latency buckets, in seconds: sub-millisecond reads up to slow ingests. */
const LATENCY_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/** The bounds an ingested event may be refused by (a label: a fixed set of names). */
export type RefusalBound = 'projects_per_key' | 'memory_budget';

/** The API's metrics. */
export interface ApiMetrics {
  /** The registry `/metrics` exposes. */
  readonly registry: Registry;
  /** Records one answered request: `endpoint` is an endpoint or route name. */
  observeRequest(endpoint: string, status: number, seconds: number): void;
  /** Counts ingested events of `source`: `accepted` or `rejected`. */
  countIngested(source: string, outcome: 'accepted' | 'rejected', events: number): void;
  /**
   * Counts ingested events refused by a bound of the service, by the bound: `projects_per_key`
   * (distinct projects per API key and day) or `memory_budget` (the embedded store is full).
   */
  countRefused(bound: RefusalBound, events: number): void;
  /** Counts a stored state that could not be read: skipped by a `read`, moved aside by a `write`. */
  countUnreadable(side: 'read' | 'write'): void;
}

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Also collect prom-client's process metrics (memory, CPU, event loop). Default false. */
  readonly processMetrics?: boolean;
}

/**
 * A fresh registry with the API's metrics.
 *
 * @example
 * ```ts
 * const metrics = createMetrics({ processMetrics: true });
 * metrics.observeRequest('logs.all', 200, 0.002);
 * const text = await metrics.registry.metrics();
 * ```
 */
export function createMetrics(options: MetricsOptions = {}): ApiMetrics {
  const registry = new Registry();
  if (options.processMetrics === true) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by endpoint (or route) and status.',
    labelNames: ['endpoint', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to its response, by endpoint (or route) and status.',
    labelNames: ['endpoint', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const ingested = new Counter({
    name: 'ingest_events_total',
    help: 'Events received by POST /api/ingest/{source}, by source and outcome.',
    labelNames: ['source', 'outcome'] as const,
    registers: [registry],
  });
  const refused = new Counter({
    name: 'ingest_refused_events_total',
    help:
      'Ingested events refused by a bound of the service: projects_per_key (distinct projects per API key and day), memory_budget (the embedded store is at its budget).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const unreadable = new Counter({
    name: 'rollup_unreadable_total',
    help:
      'Stored states or ring-buffer entries that could not be read: skipped by reads, moved aside by writes.',
    labelNames: ['side'] as const,
    registers: [registry],
  });
  return {
    registry,
    observeRequest(endpoint, status, seconds) {
      const labels = { endpoint, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    countIngested(source, outcome, events) {
      if (events > 0) ingested.inc({ source, outcome }, events);
    },
    countRefused(bound, events) {
      if (events > 0) refused.inc({ reason: bound }, events);
    },
    countUnreadable(side) {
      unreadable.inc({ side });
    },
  };
}
