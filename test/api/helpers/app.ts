/**
 * An in-process API for tests: memory store (unless one is given), a fixed clock, one key,
 * silent logs, and a `call` that goes straight through `fetch` without a socket.
 *
 * @module
 */
import { type Api, type AppSettings, createApp } from '../../../api/app.ts';
import { directSink } from '../../../api/ingest/direct-sink.ts';
import type { IngestSink } from '../../../api/ingest/sink.ts';
import { type ApiMetrics, createMetrics } from '../../../api/metrics.ts';
import { createLogger, type Logger } from '../../../src/logger.ts';
import { MemoryStore } from '../../../src/store/memory.ts';
import type { RollupStore } from '../../../src/store/port.ts';
import type { ChangeFeed } from '../../../src/store/changes.ts';

/** The key every test app accepts. */
export const TEST_KEY = 'test-key-0123456789abcdef';

/** 2026-11-21T10:15:30.123456Z: the fixed `now` of the in-process tests. */
export const TEST_NOW_US = 1_795_256_130_123_456;

/** CONTRACT section 3: the default future skew. */
export const SKEW_US = 5 * 60_000_000;

/** Options of {@link testApp}. */
export interface TestAppOptions {
  readonly store?: RollupStore;
  /** Default {@link TEST_NOW_US}. */
  readonly nowUs?: () => number;
  /** Default: folds into the store. */
  readonly sink?: IngestSink;
  readonly settings?: Partial<AppSettings>;
  readonly metrics?: ApiMetrics;
  readonly logger?: Logger;
  /** The clock of matching time (default `performance.now`). */
  readonly matchClockMs?: () => number;
  /** Where commits are signalled, for live answers (default: the test's own memory store's). */
  readonly changes?: ChangeFeed | null;
}

/** A test app and what it was built from. */
export interface TestApp {
  readonly api: Api;
  readonly store: RollupStore;
  readonly metrics: ApiMetrics;
  /** `fetch` of `path` (with the test key unless `headers` say otherwise). */
  call(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
}

/** Builds an in-process API. */
export function testApp(options: TestAppOptions = {}): TestApp {
  const nowUs = options.nowUs ?? (() => TEST_NOW_US);
  const store = options.store ?? new MemoryStore({ nowMs: () => Math.floor(nowUs() / 1000) });
  const metrics = options.metrics ?? createMetrics();
  const api = createApp({
    store,
    nowUs,
    settings: {
      apiKeys: [TEST_KEY],
      endpointIds: {},
      ingestMaxBytes: 10 * 1024 * 1024,
      maxFutureSkewUs: SKEW_US,
      resultCacheMs: 1000,
      ...options.settings,
    },
    metrics,
    logger: options.logger ?? createLogger('silent'),
    sink: options.sink ??
      directSink({ store, nowUs, recentLogsCapacity: 10_000 }),
    ...(options.matchClockMs === undefined ? {} : { matchClockMs: options.matchClockMs }),
    changes: options.changes !== undefined
      ? options.changes
      : store instanceof MemoryStore
      ? store.changes
      : null,
  });
  return {
    api,
    store,
    metrics,
    call(path, init = {}) {
      const { key = TEST_KEY, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null && !headers.has('X-API-KEY')) headers.set('X-API-KEY', key);
      return api.fetch(new Request(`http://api.test${path}`, { ...rest, headers }));
    },
  };
}
