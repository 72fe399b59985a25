/**
 * The HTTP API as one Web-standard `fetch(Request) => Response` handler (Hono), runtime-free:
 * `adapters/node.ts` and `adapters/deno.ts` put it on a socket, tests call `fetch` directly.
 *
 * Order of a request: metrics -> URL bound (414) -> CORS (preflight answered) -> caller (the
 * key presented, if valid) -> rate limit (429 per key, or per address without a valid key) ->
 * API key required (401 on every path but the public ones) -> route -> 404. Errors become the
 * envelope of `errors.ts`; anything unexpected is logged and answered 500 `internal` without
 * details.
 *
 * @module
 */
import { Hono } from 'hono';
import {
  DEFAULT_ANSWER_MAX_BYTES,
  DEFAULT_INGEST_MAX_ITEMS,
  DEFAULT_INGEST_MAX_PROJECTS_PER_KEY_PER_DAY,
  type RateLimitConfig,
} from '../src/config.ts';
import { DEFAULT_RECENT_LOGS_CAPACITY, DEFAULT_STORE_TIMEOUT_MS } from '../src/config/defaults.ts';
import { DEFAULT_MATCH_BUDGET_MS } from '../src/endpoints/read/hosts.ts';
import type { OutageLog } from '../src/async/outage-log.ts';
import type { Logger } from '../src/logger.ts';
import type { UnreadableState } from '../src/rollup/unreadable.ts';
import type { RollupStore } from '../src/store/port.ts';
import { readRegistry } from '../src/endpoints/read/hosts.ts';
import type { RegisteredHost } from '../src/rollup/keys.ts';
import { type Computed, createAnswerer } from './answer/answer.ts';
import { createKeyVerifier, identifyCaller, requireApiKey } from './middleware/auth.ts';
import { RateLimiter } from './limits/rate-limiter.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { Coalescer } from './answer/coalesce.ts';
import { cors } from './middleware/cors.ts';
import type { Connection } from './connection.ts';
import type { ApiEnv } from './context.ts';
import { errorResponse, HttpError, INTERNAL_MESSAGE } from './errors.ts';
import { HostCache } from './answer/host-cache.ts';
import { DEFAULT_HOST_REFRESH_MS } from './answer/hosts/registry-view.ts';
import type { IngestSink } from './ingest/sink.ts';
import { ProjectsPerKey } from './ingest/projects-per-key.ts';
import type { ApiMetrics } from './metrics.ts';
import { observe } from './middleware/observe.ts';
import { openApiDocument, type OpenApiObject } from './openapi/document.ts';
import { effectiveRecords } from './records.ts';
import { limitUrlLength } from './middleware/request-limits.ts';
import { registerEndpointRoutes } from './routes/endpoints.ts';
import { registerIngestRoute } from './routes/ingest.ts';
import { registerLogflareIngestRoutes } from './routes/logflare-ingest.ts';
import { SELF_HOSTED_PROJECT } from './logflare/normalize.ts';
import { registerExplorerRoutes } from './routes/explorer.ts';
import { type Asset, explorerAssets } from './explorer/assets.ts';
import { LIVENESS_PATHS, PUBLIC_PATHS, registerOperationRoutes } from './routes/operations.ts';
import { reportStoreCalls } from './store-calls.ts';
import { createLive } from './live/live-setup.ts';
import type { LiveConfig } from '../src/config/live.ts';
import { DEFAULT_LOGS_SQL, engineHeapBytes, type LogsSqlConfig } from '../src/config/logs-sql.ts';
import { createSandboxedAnswerer } from './answer/sandboxed-sql.ts';
import { guardStore } from './deadline.ts';
import { EngineThread } from '../src/logs-sql/engine-thread.ts';
import type { ChangeFeed } from '../src/store/changes.ts';

/** The settings the API reads (a subset of `Config`, with the keys required). */
export interface AppSettings extends Partial<LiveConfig>, Partial<LogsSqlConfig> {
  /** Accepted `X-API-KEY` values: at least one. */
  readonly apiKeys: readonly string[];
  readonly endpointIds: Readonly<Record<string, string>>;
  readonly ingestMaxBytes: number;
  /** Most events one ingest body may hold. Default 10,000. */
  readonly ingestMaxItems?: number;
  /** Most distinct projects one API key may ingest events of per UTC day. Default 1,000. */
  readonly ingestMaxProjectsPerKeyPerDay?: number;
  readonly maxFutureSkewUs: number;
  /** See `Config.logflareProjectRef`. Default `default`. */
  readonly logflareProjectRef?: string;
  /** See `Config.resultCacheMs`. */
  readonly resultCacheMs: number;
  /** Longest wait for a store read, in ms. Default {@link DEFAULT_STORE_TIMEOUT_MS}. */
  readonly storeTimeoutMs?: number;
  /** Longest wait for the ingest sink, in ms. Default 15,000. */
  readonly ingestTimeoutMs?: number;
  /** How old the cached host registry may be, in ms. Default {@link DEFAULT_HOST_REFRESH_MS}. */
  readonly hostRefreshMs?: number;
  /** Matching time one `usage.api-counts` pattern may use, in ms (beyond: 400). Default 1000. */
  readonly matchBudgetMs?: number;
  /** Rate limits per key and per address (docs/API.md). Default: none. */
  readonly rateLimit?: RateLimitConfig | null;
  /** Most bytes of one endpoint answer (rows beyond are cut whole). Default 2 MiB. */
  readonly answerMaxBytes?: number;
  /** Most events of one source a project keeps (what the sandbox's tables read at most). */
  readonly recentLogsCapacity?: number;
}

/** Everything the API is built from. */
export interface AppDeps {
  readonly store: RollupStore;
  /** The clock, in Unix microseconds: the `now` of every answer. */
  readonly nowUs: () => number;
  readonly settings: AppSettings;
  readonly metrics: ApiMetrics;
  readonly logger: Logger;
  readonly sink: IngestSink;
  /**
   * Why parts other than the store are not ready yet (`{ kafka: 'topics not ready: ...' }`),
   * an empty record when all are; `/readyz` says not ready while any is. Default: none.
   */
  readonly notReady?: () => Readonly<Record<string, string>>;
  /**
   * What is wrong with this process that waiting alone will not mend, or null; `/healthz` says
   * not ok while it is not null (the store refusing the writes this process makes). Default: none.
   */
  readonly unhealthy?: () => string | null;
  /** Why answers are going stale though served, or null; `/readyz` says it. Default: never. */
  readonly stale?: () => Promise<string | null>;
  /** The explorer's files by URL path. Default: read from `api/explorer/page` and uPlot. */
  readonly explorer?: ReadonlyMap<string, Asset>;
  /**
   * The clock of pattern matching time (its budget, and keys' shares), in ms. Default
   * `performance.now`.
   */
  readonly matchClockMs?: () => number;
  /** Where the store signals its commits, for live answers; null (default): nowhere. */
  readonly changes?: ChangeFeed | null;
  /**
   * The outage log of the store's connection (its owner says when the store is back): store
   * calls that fail because the store is away are counted in it. Default: one of the API's own.
   */
  readonly storeOutage?: OutageLog;
}

/** The API. */
export interface Api {
  /**
   * The Web-standard handler. `connection` is what the runtime adapter hands beside the request:
   * its peer address is what requests without a valid key are rate-limited by. Without it (a
   * request handed over directly, as tests do) no address is known and none is limited.
   */
  readonly fetch: (request: Request, connection?: Connection) => Promise<Response>;
  /** The OpenAPI document it serves. */
  readonly document: OpenApiObject;
  /** Ends its live streams (before the server closes: they never end by themselves), and the SQL engine's thread. */
  close(): void;
}

/**
 * Builds the API.
 *
 * @example
 * ```ts
 * const api = createApp({ store, nowUs: () => Date.now() * 1000, settings, metrics, logger, sink });
 * const response = await api.fetch(new Request('http://localhost/healthz'));
 * ```
 */
export function createApp(deps: AppDeps): Api {
  const { settings, logger } = deps;
  const storeTimeoutMs = settings.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const nowMs = () => Math.floor(deps.nowUs() / 1000);
  const records = effectiveRecords(settings.endpointIds);
  const document = openApiDocument(records);
  const hosts = new HostCache({
    read: (sinceUs) => readRegistry(deps.store, sinceUs),
    nowMs,
    refreshMs: settings.hostRefreshMs ?? DEFAULT_HOST_REFRESH_MS,
    ...(settings.matchBudgetMs === undefined ? {} : { matchBudgetMs: settings.matchBudgetMs }),
    ...(deps.matchClockMs === undefined ? {} : { matchClockMs: deps.matchClockMs }),
  });
  const coalescer = new Coalescer<Computed>({
    nowMs,
    windowMs: settings.resultCacheMs,
    spreadMs: Math.floor(settings.resultCacheMs / 5),
  });
  const folded = (registered: readonly RegisteredHost[] | null) => {
    coalescer.invalidate();
    if (registered === null) hosts.invalidate();
    else hosts.note(registered);
  };
  const onUnreadable = (state: UnreadableState) => {
    logger.error(state, 'a stored state could not be read; answered without it');
    deps.metrics.countUnreadable('read');
  };
  const answer = createAnswerer({
    context: () => ({
      store: deps.store,
      nowUs: deps.nowUs(),
      maxFutureSkewUs: settings.maxFutureSkewUs,
      onUnreadable,
    }),
    hosts,
    coalescer,
    maxBytes: settings.answerMaxBytes ?? DEFAULT_ANSWER_MAX_BYTES,
    onAnswer: (endpoint, how) => deps.metrics.countAnswer(endpoint, how),
  });
  const storeCalls = reportStoreCalls({
    logger,
    nowMs,
    ...(deps.storeOutage === undefined ? {} : { outage: deps.storeOutage }),
  });

  const app = new Hono<ApiEnv>();
  app.use(observe(deps.metrics, logger));
  app.use(limitUrlLength());
  app.use(cors());
  const explorer = deps.explorer ?? explorerAssets();
  const publicPaths = new Set([...PUBLIC_PATHS, ...explorer.keys()]);
  app.use(identifyCaller(createKeyVerifier(settings.apiKeys)));
  const limits = settings.rateLimit ?? null;
  if (limits !== null) {
    const limiter = new RateLimiter({
      limits,
      keys: settings.apiKeys.length,
      matchBurstMs: settings.matchBudgetMs ?? DEFAULT_MATCH_BUDGET_MS,
      nowMs,
      metrics: deps.metrics,
    });
    app.use(rateLimit(limiter, { addressFrom: limits.addressFrom, exempt: LIVENESS_PATHS }));
  }
  app.use(requireApiKey(publicPaths));
  registerOperationRoutes(app, {
    store: deps.store,
    metrics: deps.metrics,
    document,
    storeTimeoutMs,
    storeCalls,
    notReady: deps.notReady ?? (() => ({})),
    unhealthy: deps.unhealthy ?? (() => null),
    stale: deps.stale ?? (() => Promise.resolve(null)),
  });
  const live = createLive({
    settings,
    answer,
    changes: deps.changes ?? null,
    nowMs,
    metrics: deps.metrics,
    logger,
    answerMaxBytes: settings.answerMaxBytes ?? DEFAULT_ANSWER_MAX_BYTES,
    addressFrom: limits?.addressFrom ?? { kind: 'socket' },
    // Another process's commit may have registered hosts the cached registry does not hold yet.
    beforeSignalled: (record) => {
      if (record.parameters.some((parameter) => parameter.pattern === true)) hosts.expire();
    },
  });
  const sqlMaxBytes = settings.logsSqlMaxBytes ?? DEFAULT_LOGS_SQL.maxBytes;
  const engine = settings.logsAllSql === 'sandboxed'
    ? new EngineThread({
      timeoutMs: settings.logsSqlTimeoutMs ?? DEFAULT_LOGS_SQL.timeoutMs,
      heapBytes: engineHeapBytes(sqlMaxBytes),
    })
    : null;
  const sandboxed = engine !== null
    ? createSandboxedAnswerer({
      context: () => ({
        store: deps.store,
        nowUs: deps.nowUs(),
        guardRead: (read) => guardStore(read, storeTimeoutMs, storeCalls),
      }),
      engine,
      capacity: settings.recentLogsCapacity ?? DEFAULT_RECENT_LOGS_CAPACITY,
      maxBytes: sqlMaxBytes,
      maxConcurrent: settings.logsSqlMaxConcurrent ?? DEFAULT_LOGS_SQL.maxConcurrent,
      maxConcurrentPerKey: settings.logsSqlMaxConcurrentPerKey ??
        DEFAULT_LOGS_SQL.maxConcurrentPerKey,
      answerMaxBytes: settings.answerMaxBytes ?? DEFAULT_ANSWER_MAX_BYTES,
      onOutcome: (outcome) => deps.metrics.countSqlQuery(outcome),
    })
    : null;
  registerEndpointRoutes(app, {
    records,
    answer,
    storeTimeoutMs,
    storeCalls,
    live: live.route,
    sandboxed,
  });
  registerExplorerRoutes(app, {
    assets: explorer,
    projects: (limit) => hosts.projects(limit),
    storeTimeoutMs,
    storeCalls,
  });
  const ingest = {
    sink: deps.sink,
    nowUs: deps.nowUs,
    maxFutureSkewUs: settings.maxFutureSkewUs,
    maxBytes: settings.ingestMaxBytes,
    maxItems: settings.ingestMaxItems ?? DEFAULT_INGEST_MAX_ITEMS,
    metrics: deps.metrics,
    logger,
    timeoutMs: settings.ingestTimeoutMs ?? 15_000,
    projectsPerKey: new ProjectsPerKey({
      maxPerDay: settings.ingestMaxProjectsPerKeyPerDay ??
        DEFAULT_INGEST_MAX_PROJECTS_PER_KEY_PER_DAY,
      nowUs: deps.nowUs,
    }),
    onFolded: folded,
  };
  registerIngestRoute(app, ingest);
  registerLogflareIngestRoutes(app, {
    ...ingest,
    projectRef: settings.logflareProjectRef ?? SELF_HOSTED_PROJECT,
  });
  app.notFound((c) =>
    errorResponse(
      'not_found',
      `no route for ${c.req.method} ${c.req.path.slice(0, 200)}: /openapi.json lists the routes`,
    )
  );
  app.onError((error, c) => {
    if (error instanceof HttpError) return errorResponse(error.code, error.message, error.headers);
    logger.error({ err: error, method: c.req.method, path: c.req.path }, 'unexpected error');
    return errorResponse('internal', INTERNAL_MESSAGE);
  });

  return {
    fetch: async (request, connection) =>
      await app.fetch(request, connection === undefined ? {} : { connection }),
    document,
    close: () => {
      live.close();
      engine?.close();
    },
  };
}
