/**
 * Prometheus metrics of the API (prom-client, one registry per app): requests and their
 * latency per endpoint and status, ingested events per source and outcome, rate-limit refusals
 * per scope and limit, and what the server refused by reason. Labels carry endpoint names, route
 * names, status codes and fixed words only: never parameters, projects, keys or addresses, so
 * `/metrics` tells nothing about the data or the callers and its cardinality stays bounded.
 *
 * @module
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { type Refusal, REFUSALS } from './refusals.ts';

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
  countIngestRefused(bound: RefusalBound, events: number): void;
  /** Counts ring-buffer entries (of `logs.all`) the embedded store dropped to stay within its budget. */
  countRecentLogsDropped(entries: number): void;
  /** Counts a stored state that could not be read: skipped by a `read`, moved aside by a `write`. */
  countUnreadable(side: 'read' | 'write'): void;
  /** Counts a request refused 429: by the bucket of its `scope`, for its `limit`. */
  countRateLimited(scope: RateLimitScope, limit: RateLimitKind): void;
  /** Counts an address bucket pushed out to make room for another. */
  countRateLimitEviction(): void;
  /** Counts a connection or request the server refused or cut (see `Refusal`). */
  countRefused(reason: Refusal): void;
  /** Counts one endpoint answer: `reused` (shared another request's read) or `computed`. */
  countAnswer(endpoint: string, how: 'reused' | 'computed'): void;
  /** Counts one `logs.all` call with `sql` run by the sandbox, by how it ended. */
  countSqlQuery(outcome: SqlOutcome): void;
}

/**
 * How a sandboxed `logs.all` query ended: answered; refused (outside the subset, invalid, or its
 * range too large); timed_out (past `LOGS_SQL_TIMEOUT_MS`: the engine's thread was ended); busy
 * (429: the key's or the process's queries were all running); failed (the store or the engine
 * failed: 503 or 500).
 */
export type SqlOutcome = 'answered' | 'refused' | 'timed_out' | 'busy' | 'failed';

const SQL_OUTCOMES: readonly SqlOutcome[] = ['answered', 'refused', 'timed_out', 'busy', 'failed'];

/** Whose bucket refused: an API key's, or a client address's (requests without a valid key). */
export type RateLimitScope = 'key' | 'address';

/** Which limit: the request rate, or a key's share of costly pattern matching. */
export type RateLimitKind = 'requests' | 'matching';

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
    help:
      "Events received by POST /api/ingest/{source} and by Logflare's ingest routes, by source and outcome.",
    labelNames: ['source', 'outcome'] as const,
    registers: [registry],
  });
  const ingestRefused = new Counter({
    name: 'ingest_refused_events_total',
    help:
      'Ingested events refused by a bound of the service: projects_per_key (distinct projects per API key and day), memory_budget (the embedded store is at its budget).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const recentLogsDropped = new Counter({
    name: 'memory_store_dropped_log_entries_total',
    help:
      'Ring-buffer entries (logs.all) the embedded store dropped, oldest first from the project ' +
      'holding the most, to make room within MEMORY_STORE_MAX_BYTES.',
    registers: [registry],
  });
  const unreadable = new Counter({
    name: 'rollup_unreadable_total',
    help:
      'Stored states or ring-buffer entries that could not be read: skipped by reads, moved aside by writes.',
    labelNames: ['side'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'rate_limited_total',
    help: 'Requests refused 429 rate_limited, by scope (key or address) and limit ' +
      '(requests or matching).',
    labelNames: ['scope', 'limit'] as const,
    registers: [registry],
  });
  const evictions = new Counter({
    name: 'rate_limit_evictions_total',
    help:
      'Client address buckets dropped to make room for another (the least recently seen first).',
    registers: [registry],
  });
  const refused = new Counter({
    name: 'http_refused_total',
    help:
      'Connections and requests the HTTP server refused or cut itself (caps, timeouts, requests it ' +
      'could not read, answers not read), by reason; never by client address.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const answers = new Counter({
    name: 'api_answers_total',
    help: "Endpoint answers, by endpoint and how: reused (shared another request's store read, " +
      'in flight or within RESULT_CACHE_MS) or computed (read from the store).',
    labelNames: ['endpoint', 'how'] as const,
    registers: [registry],
  });
  const sqlQueries = new Counter({
    name: 'logs_sql_queries_total',
    help: 'logs.all calls with sql run by the sandbox (LOGS_ALL_SQL=sandboxed), by outcome: ' +
      'answered, refused (400), timed_out (past LOGS_SQL_TIMEOUT_MS), busy (429), ' +
      'failed (503, 500).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // Every reason from 0, so that a rate or an alert on one has a series before its first refusal.
  for (const reason of REFUSALS) refused.inc({ reason }, 0);
  for (const outcome of SQL_OUTCOMES) sqlQueries.inc({ outcome }, 0);
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
    countIngestRefused(bound, events) {
      if (events > 0) ingestRefused.inc({ reason: bound }, events);
    },
    countRecentLogsDropped(entries) {
      if (entries > 0) recentLogsDropped.inc(entries);
    },
    countUnreadable(side) {
      unreadable.inc({ side });
    },
    countRateLimited(scope, limit) {
      rateLimited.inc({ scope, limit });
    },
    countRateLimitEviction() {
      evictions.inc();
    },
    countRefused(reason) {
      refused.inc({ reason });
    },
    countAnswer(endpoint, how) {
      answers.inc({ endpoint, how });
    },
    countSqlQuery(outcome) {
      sqlQueries.inc({ outcome });
    },
  };
}
