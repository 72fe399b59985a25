/**
 * The composition root: starts the service from its configuration, for one of three roles. The
 * one place that knows every piece: the store, the ingest sink (the store itself, or Kafka when
 * `KAFKA_BROKERS` is set), the HTTP API on the given runtime adapter, the consumers, demo
 * traffic and the banner. `main.ts` only adds the process around it.
 *
 * | role        | runs                                                              |
 * | ----------- | ----------------------------------------------------------------- |
 * | `all`       | API and ingest, and the consumers when `KAFKA_BROKERS` is set     |
 * | `api`       | API and ingest only (scale it out beside the consumers)           |
 * | `consumers` | the consumer group only (needs `KAFKA_BROKERS`)                   |
 *
 * @module
 */
import { RefusalLog } from '../src/store/refusal-log.ts';
import { refusingText, type WriteRefusal } from '../src/store/write-refusal.ts';
import { randomBytes } from 'node:crypto';
import { createApp } from '../api/app.ts';
import { directSink } from '../api/ingest/direct-sink.ts';
import { openKafkaSink } from '../api/ingest/kafka-sink.ts';
import type { IngestSink } from '../api/ingest/sink.ts';
import { type ApiMetrics, createMetrics } from '../api/metrics.ts';
import { RequestTurns, requestTurnsMetrics } from '../api/adapters/request-turns.ts';
import { refusalReporter } from '../api/refusal-report.ts';
import type { Serve } from '../api/adapters/serve.ts';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { startConsumers } from '../consumers/start.ts';
import type { Config } from '../src/config.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { kafkaFailure } from '../src/kafka/failure.ts';
import { topicNames } from '../src/kafka/topics.ts';
import type { Logger } from '../src/logger.ts';
import { MOVED_ASIDE_MESSAGE, type UnreadableState } from '../src/rollup/unreadable.ts';
import { type OpenedStore, openStore } from '../src/store/open.ts';
import { observedStore } from '../src/store/observed.ts';
import type { RollupStore } from '../src/store/port.ts';
import { watchRedisEvents } from '../src/store/redis-events.ts';
import { registerStoreMetrics } from './store-metrics.ts';
import { OutageLog } from '../src/async/outage-log.ts';
import { bannerLines } from './banner.ts';
import { consumerOpsHandler } from './consumer-ops.ts';
import { type Demo, startDemo } from './demo.ts';

/** What a process runs. */
export type Role = 'all' | 'api' | 'consumers';

/** Every role, for argument checking. */
export const ROLES: readonly Role[] = ['all', 'api', 'consumers'];

/** How the service is started. */
export interface StartOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly role: Role;
  /** Feed demo traffic (`DEMO=1` or `--demo`); not with the `consumers` role. */
  readonly demo: boolean;
  readonly serve: Serve;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  /** Where the banner goes (standard output). */
  readonly print: (line: string) => void;
  /**
   * Told of a state the service must not run in (a Redis that may evict keys): the process
   * says the message and exits.
   */
  readonly onFatal: (message: string) => void;
}

/** The running service. */
export interface Service {
  /**
   * The API's base URL; for the `consumers` role, the base URL of its metrics port, or null
   * without `METRICS_PORT`.
   */
  readonly url: string | null;
  /** Stops in order: new requests, demo, consumers, sink, store. */
  stop(): Promise<void>;
}

/** The configured keys, or one random key of 32 URL-safe characters generated for this run. */
function apiKeys(config: Config): { keys: readonly string[]; generated: string | null } {
  if (config.apiKeys !== null) return { keys: config.apiKeys, generated: null };
  const generated = randomBytes(24).toString('base64url');
  return { keys: [generated], generated };
}

/**
 * Starts everything `options` asks for and prints the banner. On a failure, whatever had
 * started is stopped again before the error is thrown.
 *
 * @example
 * ```ts
 * const service = await startService({ config, logger, role: 'all', demo: false,
 *   serve: serveNode, nowUs: () => Date.now() * 1000, print: console.log });
 * ```
 */
export async function startService(options: StartOptions): Promise<Service> {
  const { config, logger, nowUs } = options;
  if (options.role === 'consumers' && config.kafkaBrokers === null) {
    throw new Error('the consumers need KAFKA_BROKERS (comma-separated host:port pairs)');
  }
  const nowMs = () => Math.floor(nowUs() / 1000);
  const outage = new OutageLog({ logger, what: `the store (${storeAddress(config)})`, nowMs });
  let storeChecked: () => void = () => undefined;
  const storeReady = new Promise<void>((resolve) => (storeChecked = resolve));
  // One registry per process: the API's (the consumers share it in role `all`) or the consumers'.
  const apiMetrics = options.role === 'consumers' ? null : createMetrics({ processMetrics: true });
  const registry = apiMetrics?.registry ?? processRegistry();
  const storeMetrics = registerStoreMetrics(registry);
  const opened = openStore(config.store, {
    nowMs,
    onError: (error) => outage.failed(error),
    onReady: () => {
      outage.recovered();
      void checkEviction(opened, config, options.onFatal).then(storeChecked, (error: unknown) => {
        // Redis went away again between its ready and the question: asked at the next ready.
        outage.failed(error);
      });
    },
  });
  // A store that answers but refuses writes (full, read-only, ...): one state, said sparingly.
  const refusals = new RefusalLog({
    logger,
    nowMs,
    memory: () => opened.memory(),
    onChange: (reason) => storeMetrics.refusing(reason),
  });
  const store = observedStore(opened.store, {
    ...storeMetrics,
    writeRefused: (reason, call) => {
      storeMetrics.writeRefused(reason);
      refusals.refused(reason, call);
    },
    writeAccepted: (call) => refusals.accepted(call),
  });
  const refusing = () => {
    const reason = refusals.current();
    return reason === null ? null : refusingText(reason);
  };
  const unwatch = watchRedisEvents(storeMetrics);
  const stops: (() => Promise<void>)[] = [
    () => store.close(),
    () => Promise.resolve(unwatch()),
  ];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.warn({ err: error }, 'stopping a part failed; stopping the rest');
      }
    }
  };
  try {
    if (apiMetrics === null) {
      if (config.store.kind === 'memory') {
        logger.warn(
          "no REDIS_URL or UPSTASH_REDIS_REST_URL: folding into this process's memory, " +
            'which no separate API process can read',
        );
      }
      const consumers = startConsumers(config, store, logger, nowUs, {
        storeReady,
        metrics: registry,
      });
      stops.push(() => consumers.stop());
      if (config.metricsPort === null) return { url: null, stop: stopAll };
      const served = await options.serve(
        consumerOpsHandler(
          registry,
          consumers.notReady,
          () => refusing() ?? consumers.unhealthy(),
          consumers.lost,
        ),
        {
          hostname: config.host,
          port: config.metricsPort,
          logger,
        },
      );
      stops.push(() => served.close());
      logger.info({ url: `${served.url}/metrics` }, 'consumer metrics listening');
      return { url: served.url, stop: stopAll };
    }
    return await startHttp(
      options,
      { opened, outage, store, metrics: apiMetrics, refusing },
      storeReady,
      stops,
      stopAll,
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** How long the API keeps the store's answer to whether it refuses writes, in ms. */
const REFUSAL_CHECK_MS = 5_000;

/**
 * Why answers are going stale: this process's writes refused, else (an API that writes nothing)
 * the store's own word that it would refuse them (`INFO`), asked at most every
 * {@link REFUSAL_CHECK_MS}.
 */
function staleness(
  refusing: () => string | null,
  refusalNow: () => Promise<WriteRefusal | null>,
  nowUs: () => number,
): () => Promise<string | null> {
  let checked: { atUs: number; reason: Promise<WriteRefusal | null> } | null = null;
  return async () => {
    const own = refusing();
    if (own !== null) return own;
    const now = nowUs();
    if (checked === null || now - checked.atUs > REFUSAL_CHECK_MS * 1000) {
      checked = { atUs: now, reason: refusalNow().catch(() => null) };
    }
    const reason = await checked.reason;
    return reason === null ? null : refusingText(reason);
  };
}

/** A registry with prom-client's process and Node metrics, for the consumers role. */
function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Where the store is, for the log (a URL's password is left out). */
function storeAddress(config: Config): string {
  const store = config.store;
  switch (store.kind) {
    case 'memory':
      return 'in memory';
    case 'redis':
      return store.url.replace(/\/\/[^@/]*@/, '//');
    case 'redis-cluster':
      return store.nodes.join(',');
    case 'upstash':
      return store.url;
  }
}

/**
 * Refuses a Redis that may evict keys (see `Config.redisAllowEviction`): rollup keys carry
 * expiries, and an evicting `maxmemory-policy` would drop them while the offsets that say they
 * were written stay, so counts would be lost and never replayed.
 */
async function checkEviction(
  opened: OpenedStore,
  config: Config,
  onFatal: (message: string) => void,
): Promise<void> {
  const policy = await opened.evictionPolicy();
  if (policy === null || policy === 'noeviction' || config.redisAllowEviction) return;
  onFatal(
    `Redis's maxmemory-policy is ${policy}: it may evict rollup keys while their offsets stay, ` +
      'and the counts would be lost for good. Set it to noeviction (redis-cli CONFIG SET ' +
      'maxmemory-policy noeviction, and in redis.conf), or set REDIS_ALLOW_EVICTION=1 to run ' +
      'anyway and accept that loss.',
  );
}

/** The `all` and `api` roles: API, ingest, and (role `all` with Kafka) the consumers. */
async function startHttp(
  options: StartOptions,
  storeParts: {
    readonly opened: OpenedStore;
    readonly outage: OutageLog;
    readonly store: RollupStore;
    readonly metrics: ApiMetrics;
    /** Why the store refuses the writes of this process now, or null. */
    readonly refusing: () => string | null;
  },
  storeReady: Promise<void>,
  stops: (() => Promise<void>)[],
  stopAll: () => Promise<void>,
): Promise<Service> {
  const { config, logger, nowUs } = options;
  const { opened, store, metrics } = storeParts;
  const movedAside = (state: UnreadableState) => {
    logger.error(state, MOVED_ASIDE_MESSAGE);
    metrics.countUnreadable('write');
  };
  /** Parts that say why they are not ready yet (null once they are), by name. */
  const notReady = new Map<string, () => string | null>();
  let sinkReady = Promise.resolve();
  let sink: IngestSink;
  if (config.kafkaBrokers === null) {
    sink = directSink({
      store,
      nowUs,
      recentLogsCapacity: config.recentLogsCapacity,
      maxFutureSkewUs: config.maxFutureSkewUs,
      onUnreadable: movedAside,
      ...(opened.budget === null ? {} : { budget: opened.budget }),
      onRecentLogsDropped: (entries) => metrics.countRecentLogsDropped(entries),
    });
  } else {
    const outage = new OutageLog({
      logger,
      what: `Kafka (${config.kafkaBrokers.join(',')}) or its topics, for ingest`,
      nowMs: () => Math.floor(nowUs() / 1000),
    });
    const kafkaSink = openKafkaSink({
      kafka: kafkaClient(config, logger, config.kafkaBrokers),
      topics: topicNames(config.kafkaTopicPrefix),
      partitions: config.topicPartitions,
      onConnectFailure: (error) => outage.failed(kafkaFailure(error, config.kafkaSecurity)),
      onConnected: () => outage.recovered(),
    });
    notReady.set('ingest', () => kafkaSink.notReady());
    sinkReady = kafkaSink.connected;
    sink = kafkaSink;
  }
  stops.push(() => sink.close());
  const { keys, generated } = apiKeys(config);
  const api = createApp({
    store,
    nowUs,
    settings: { ...config, apiKeys: keys },
    metrics,
    logger,
    sink,
    storeOutage: storeParts.outage,
    changes: opened.changes,
    unhealthy: storeParts.refusing,
    stale: staleness(storeParts.refusing, () => opened.refusalNow(), nowUs),
    notReady: () => {
      const reasons: Record<string, string> = {};
      for (const [part, reason] of notReady) {
        const why = reason();
        if (why !== null) reasons[part] = why;
      }
      return reasons;
    },
  });
  if (options.role === 'all' && config.kafkaBrokers !== null) {
    // The consumers log what they move aside themselves; here it is also counted.
    const consumers = startConsumers(config, store, logger, nowUs, {
      onUnreadable: () => metrics.countUnreadable('write'),
      storeReady,
      metrics: metrics.registry,
    });
    stops.push(() => consumers.stop());
    notReady.set('consumers', () => consumers.notReady());
  }
  let demo: Demo | null = null;
  if (options.demo) {
    // The demo's history goes in at once: it waits for the store and the sink.
    await Promise.all([storeReady, sinkReady]);
    demo = await startDemo({ sink, nowUs, maxFutureSkewUs: config.maxFutureSkewUs, logger });
    const running = demo;
    stops.push(() => running.stop());
  }
  // Durations on the process's own clock: the service's may be a replay's.
  const turns = new RequestTurns({ nowMs: () => performance.now() });
  requestTurnsMetrics(metrics.registry, turns);
  const served = await options.serve(api.fetch, {
    hostname: config.host,
    port: config.port,
    turns,
    limits: {
      requestTimeoutMs: config.httpRequestTimeoutMs,
      headersTimeoutMs: config.httpHeadersTimeoutMs,
      maxConnections: config.httpMaxConnections,
      maxConnectionsPerAddress: config.httpMaxConnectionsPerAddress,
      writeTimeoutMs: config.httpWriteTimeoutMs,
    },
    onRefusal: refusalReporter({ metrics, logger, nowMs: () => Math.floor(nowUs() / 1000) }),
    logger,
  });
  stops.push(() => served.close());
  // Run before the server closes, which waits for every connection: a live stream never ends.
  stops.push(() => Promise.resolve(api.close()));
  const setup = [
    `store: ${config.store.kind}`,
    `ingest: ${sink.kind === 'kafka' ? 'Kafka' : 'direct to the store'}`,
    options.role === 'all' && config.kafkaBrokers !== null ? 'consumers: running' : null,
  ].filter((part) => part !== null).join(', ');
  for (
    const line of bannerLines({
      url: served.url,
      generatedKey: generated,
      project: demo?.project ?? 'abcdefghijklmnopqrst',
      setup,
      demo: demo !== null,
      nowUs: nowUs(),
    })
  ) {
    options.print(line);
  }
  logger.info({ url: served.url, role: options.role, demo: demo !== null }, 'listening');
  return { url: served.url, stop: stopAll };
}
