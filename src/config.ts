/**
 * The service's configuration: read from the environment once, validated in one place. A bad
 * value stops start-up with a {@link ConfigError} naming the variable, the value and what is
 * allowed. Secrets (API keys, tokens) are never part of an error message.
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env);
 * ```
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { type KafkaSecurity, kafkaSecurity } from './config/kafka-security.ts';
import {
  type AddressSource,
  DEFAULT_ANSWER_MAX_BYTES,
  DEFAULT_HTTP_LIMITS,
  DEFAULT_RATE_LIMIT,
  type HttpConfig,
  httpConfig,
  type RateLimitConfig,
} from './config/http.ts';
import { type LiveConfig, liveConfig } from './config/live.ts';
import { type LogsSqlConfig, logsSqlConfig } from './config/logs-sql.ts';
import {
  DEFAULT_FETCH_MIN_BYTES,
  DEFAULT_FLUSH_BYTES,
  DEFAULT_FLUSH_LINGER_MS,
  DEFAULT_MAX_FUTURE_SKEW_US,
  DEFAULT_PORT,
  DEFAULT_RECENT_LOGS_CAPACITY,
  DEFAULT_SESSION_TIMEOUT_MS,
  DEFAULT_STORE_TIMEOUT_MS,
  SERVICE_NAME,
} from './config/defaults.ts';
import { ConfigError, type Env, flag, integer, secret, text } from './config/read.ts';
import { type RedisSecurity, redisSecurity, shownUrl } from './config/redis-security.ts';
import type { Secret } from './config/secret.ts';
import { UUID } from './text/uuid.ts';
import { describeDuration, parseDuration } from './time/duration.ts';
import { messageOf } from './text/error-message.ts';

export { ConfigError, DEFAULT_ANSWER_MAX_BYTES, DEFAULT_HTTP_LIMITS, DEFAULT_RATE_LIMIT };
export type { AddressSource, KafkaSecurity, RateLimitConfig, RedisSecurity };

/** Partitions per topic unless configured (`TOPIC_PARTITIONS`): room for 12 consumers in a group. */
export const DEFAULT_TOPIC_PARTITIONS = 12;

/**
 * Stored parts a consumer process's writers keep deserialized between flushes, all its
 * partitions together, unless configured (`PARTS_CACHE_LIMIT`).
 */
export const DEFAULT_PARTS_CACHE_LIMIT = 100_000;

/** Events one ingest body may hold unless configured (`INGEST_MAX_ITEMS`). */
export const DEFAULT_INGEST_MAX_ITEMS = 10_000;

/**
 * Distinct projects one API key may ingest events of per UTC day unless configured
 * (`INGEST_MAX_PROJECTS_PER_KEY_PER_DAY`).
 */
export const DEFAULT_INGEST_MAX_PROJECTS_PER_KEY_PER_DAY = 1_000;

/**
 * Memory budget of the embedded store unless configured (`MEMORY_STORE_MAX_BYTES`): an
 * estimate of what it holds, in bytes.
 */
export const DEFAULT_MEMORY_STORE_MAX_BYTES = 256 * 1024 * 1024;

/** Where the rollups are stored. */
export type StoreConfig =
  /** The embedded store, refusing ingest once it holds an estimated `maxBytes`. */
  | { readonly kind: 'memory'; readonly maxBytes: number }
  | { readonly kind: 'redis'; readonly url: string; readonly security: RedisSecurity }
  /** A Redis Cluster, reached through any of its nodes (`host:port`); `security` for every node. */
  | {
    readonly kind: 'redis-cluster';
    readonly nodes: readonly string[];
    readonly security: RedisSecurity;
  }
  | { readonly kind: 'upstash'; readonly url: string; readonly token: Secret };

/** Everything configurable, validated. */
export interface Config extends HttpConfig, LiveConfig, LogsSqlConfig {
  readonly store: StoreConfig;
  /** Kafka bootstrap brokers (`host:port`), or null: no Kafka (the embedded default). */
  readonly kafkaBrokers: readonly string[] | null;
  readonly kafkaClientId: string;
  /** TLS and SASL of every Kafka client (see src/config/kafka-security.ts). */
  readonly kafkaSecurity: KafkaSecurity;
  readonly kafkaGroupId: string;
  /** Prefix of every topic name (default none). */
  readonly kafkaTopicPrefix: string;
  readonly topicPartitions: number;
  readonly flushIntervalMs: number;
  readonly flushEvents: number;
  /** Least time between the starts of a partition's flushes (`FLUSH_LINGER_MS`). */
  readonly flushLingerMs: number;
  /** Least bytes a consumer's fetch waits for, up to `flushIntervalMs` (`FETCH_MIN_BYTES`). */
  readonly fetchMinBytes: number;
  /** Most bytes of event text a partition holds folded and not yet written. */
  readonly flushBytes: number;
  /** Most stored parts a consumer process keeps deserialized between flushes. */
  readonly partsCacheLimit: number;
  /**
   * Run on a Redis whose `maxmemory-policy` may evict keys (`REDIS_ALLOW_EVICTION=1`): rollups
   * can then vanish while the offsets that say they were written stay. Refused by default.
   */
  readonly redisAllowEviction: boolean;
  readonly consumerConcurrency: number;
  /** Consumer group session (and rebalance) timeout: how soon a dead member's partitions move. */
  readonly consumerSessionTimeoutMs: number;
  readonly maxFutureSkewUs: number;
  readonly recentLogsCapacity: number;
  readonly host: string;
  readonly port: number;
  /**
   * Where the `consumers` role serves `/metrics`, `/healthz` and `/readyz` (`METRICS_PORT`), on
   * `host`; null: it serves nothing (the `all` role has them on the API's port).
   */
  readonly metricsPort: number | null;
  /** Accepted `X-API-KEY` values; null when none is configured. */
  readonly apiKeys: readonly string[] | null;
  /** Endpoint id overrides by endpoint name. */
  readonly endpointIds: Readonly<Record<string, string>>;
  readonly ingestMaxBytes: number;
  /** Most events one ingest body may hold (413 beyond). */
  readonly ingestMaxItems: number;
  /** Most distinct projects one API key may ingest events of per UTC day. */
  readonly ingestMaxProjectsPerKeyPerDay: number;
  /**
   * The project ref of events posted to Logflare's ingest routes that name none or `default`
   * (`LOGFLARE_PROJECT_REF`, default `default`: a self-hosted Studio's own ref).
   */
  readonly logflareProjectRef: string;
  /**
   * How long the API may reuse an answer for identical requests (same endpoint, same
   * parameters), in ms; 0 = only concurrent identical requests share one store read.
   */
  readonly resultCacheMs: number;
  /**
   * Longest wait of the API for a store read (an endpoint's rows, the explorer's projects,
   * `/readyz`'s ping), in ms: past it the answer is 503 `unavailable` with `Retry-After`.
   */
  readonly storeTimeoutMs: number;
  /** Feed synthetic traffic into the embedded store at start (`DEMO=1`). */
  readonly demo: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const HOST_PORT = /^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/;

/** Endpoint id override variables, by endpoint name. */
export const ENDPOINT_ID_VARIABLES = {
  'functions.invocation-stats': 'ENDPOINT_ID_INVOCATION_STATS',
  'logs.all': 'ENDPOINT_ID_LOGS_ALL',
  'usage.api-counts': 'ENDPOINT_ID_API_COUNTS',
} as const;

function duration(env: Env, name: string, fallbackUs: number): number {
  const value = text(env, name);
  if (value === null) return fallbackUs;
  try {
    return parseDuration(value);
  } catch (error) {
    const allowed = `a duration such as 30s, 5m or 1h (default ${describeDuration(fallbackUs)})`;
    throw new ConfigError(name, value, allowed, { cause: error });
  }
}

const STORE_KINDS = 'one of memory, redis, redis-cluster, upstash';

function storeConfig(env: Env): StoreConfig {
  const kind = text(env, 'STORE');
  const redisUrl = text(env, 'REDIS_URL');
  const clusterNodes = text(env, 'REDIS_CLUSTER_NODES');
  const restUrl = text(env, 'UPSTASH_REDIS_REST_URL');
  const restToken = secret(env, 'UPSTASH_REDIS_REST_TOKEN', 'the REST token');
  if (kind === null && redisUrl !== null && clusterNodes !== null) {
    throw new ConfigError(
      'STORE',
      '',
      'redis or redis-cluster: both REDIS_URL and REDIS_CLUSTER_NODES are set, say which to use',
    );
  }
  const chosen = kind ??
    (redisUrl !== null
      ? 'redis'
      : clusterNodes !== null
      ? 'redis-cluster'
      : restUrl !== null
      ? 'upstash'
      : 'memory');
  if (chosen === 'memory') {
    return {
      kind: 'memory',
      maxBytes: integer(
        env,
        'MEMORY_STORE_MAX_BYTES',
        DEFAULT_MEMORY_STORE_MAX_BYTES,
        1024 * 1024,
        Number.MAX_SAFE_INTEGER,
      ),
    };
  }
  if (chosen === 'redis') {
    if (redisUrl === null) {
      throw new ConfigError('REDIS_URL', '', 'a redis:// or rediss:// URL when STORE=redis');
    }
    if (!/^rediss?:\/\/[^\s]+$/.test(redisUrl)) {
      throw new ConfigError('REDIS_URL', shownUrl(redisUrl), 'a redis:// or rediss:// URL');
    }
    return { kind: 'redis', url: redisUrl, security: redisSecurity(env, redisUrl) };
  }
  if (chosen === 'redis-cluster') {
    const nodes = nodeList(clusterNodes);
    return { kind: 'redis-cluster', nodes, security: redisSecurity(env, null) };
  }
  if (chosen === 'upstash') {
    if (restUrl === null || !/^https?:\/\/[^\s]+$/.test(restUrl)) {
      throw new ConfigError('UPSTASH_REDIS_REST_URL', restUrl ?? '', 'an http:// or https:// URL');
    }
    if (restToken === null) {
      throw new ConfigError(
        'UPSTASH_REDIS_REST_TOKEN',
        '',
        'the REST token, or UPSTASH_REDIS_REST_TOKEN_FILE (required with it)',
      );
    }
    return { kind: 'upstash', url: restUrl, token: restToken };
  }
  throw new ConfigError('STORE', chosen, STORE_KINDS);
}

/** `REDIS_CLUSTER_NODES`: comma-separated `host:port` of one or more cluster nodes. */
function nodeList(value: string | null): string[] {
  const allowed = 'comma-separated host:port of Redis Cluster nodes, e.g. ' +
    '127.0.0.1:7001,127.0.0.1:7002 (required with STORE=redis-cluster)';
  const nodes = (value ?? '').split(',').map((node) => node.trim()).filter((node) => node !== '');
  const valid = nodes.every((node) => {
    const match = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(node);
    const port = Number(match?.[2]);
    return match !== null && port >= 1 && port <= 65_535;
  });
  if (nodes.length === 0 || nodes.length > 64 || !valid) {
    throw new ConfigError('REDIS_CLUSTER_NODES', value ?? '', allowed);
  }
  return nodes;
}

/**
 * The variables a self-hosted Supabase stack gives Logflare its keys in, read as keys too (each
 * also as a file, `<name>_FILE`).
 */
const LOGFLARE_TOKENS = ['LOGFLARE_PUBLIC_ACCESS_TOKEN', 'LOGFLARE_PRIVATE_ACCESS_TOKEN'] as const;

/** The project ref Logflare-ingested events get when they name none or `default`. */
function logflareProjectRef(env: Env): string {
  const ref = text(env, 'LOGFLARE_PROJECT_REF') ?? 'default';
  if (!/^[\x21-\x7e]{1,128}$/.test(ref)) {
    throw new ConfigError(
      'LOGFLARE_PROJECT_REF',
      ref.slice(0, 200),
      '1 to 128 printable ASCII characters',
    );
  }
  return ref;
}

/** The fewest characters of an API key. */
export const API_KEY_MIN_LENGTH = 16;
/** The most characters of an API key (printable ASCII: as many bytes). */
export const API_KEY_MAX_LENGTH = 256;

function apiKeys(env: Env): string[] | null {
  const file = text(env, 'API_KEYS_FILE');
  // Each key with the variable it came from, which a refusal names (never the key).
  const found: [variable: string, keys: string][] = [['API_KEYS', text(env, 'API_KEYS') ?? '']];
  if (file !== null) {
    try {
      found.push(['API_KEYS_FILE', readFileSync(file, 'utf8').split(/\r?\n/).join(',')]);
    } catch (error) {
      const reason = messageOf(error);
      throw new ConfigError('API_KEYS_FILE', file, `a readable file of keys (${reason})`, {
        cause: error,
      });
    }
  }
  // A self-hosted Supabase stack's tokens for Logflare, as its `analytics` service reads them.
  for (const name of LOGFLARE_TOKENS) {
    found.push([name, secret(env, name, `Logflare's ${name}`)?.reveal() ?? '']);
  }
  const keys: string[] = [];
  for (const [variable, raw] of found) {
    for (const key of raw.split(',').map((entry) => entry.trim())) {
      if (key === '') continue;
      keys.push(key);
      if (
        key.length < API_KEY_MIN_LENGTH || key.length > API_KEY_MAX_LENGTH ||
        !/^[\x21-\x7e]+$/.test(key)
      ) {
        // The key itself is a secret: name its position, never its value.
        throw new ConfigError(
          variable,
          `<key #${keys.length}, ${key.length} characters>`,
          `keys of ${API_KEY_MIN_LENGTH} to ${API_KEY_MAX_LENGTH} printable ASCII characters, ` +
            'comma-separated',
        );
      }
    }
  }
  return keys.length === 0 ? null : keys;
}

function topicPrefix(env: Env): string {
  const prefix = text(env, 'KAFKA_TOPIC_PREFIX') ?? '';
  if (!/^[A-Za-z0-9._-]{0,100}$/.test(prefix)) {
    throw new ConfigError('KAFKA_TOPIC_PREFIX', prefix, 'up to 100 of A-Z a-z 0-9 . _ -');
  }
  return prefix;
}

/** Reads and validates the configuration from `env`; throws {@link ConfigError}. */
export function loadConfig(env: Env): Config {
  const brokersText = text(env, 'KAFKA_BROKERS');
  const kafkaBrokers = brokersText === null
    ? null
    : brokersText.split(',').map((broker) => broker.trim());
  if (kafkaBrokers !== null && !kafkaBrokers.every((broker) => HOST_PORT.test(broker))) {
    throw new ConfigError('KAFKA_BROKERS', brokersText ?? '', 'comma-separated host:port pairs');
  }
  const endpointIds: Record<string, string> = {};
  for (const [name, variable] of Object.entries(ENDPOINT_ID_VARIABLES)) {
    const id = text(env, variable);
    if (id === null) continue;
    if (!UUID.test(id)) throw new ConfigError(variable, id, 'a UUID');
    endpointIds[name] = id.toLowerCase();
  }
  const logLevel = text(env, 'LOG_LEVEL') ?? 'info';
  const level = LOG_LEVELS.find((candidate) => candidate === logLevel);
  if (level === undefined) throw new ConfigError('LOG_LEVEL', logLevel, LOG_LEVELS.join(', '));
  return {
    store: storeConfig(env),
    kafkaBrokers,
    kafkaClientId: text(env, 'KAFKA_CLIENT_ID') ?? SERVICE_NAME,
    kafkaSecurity: kafkaSecurity(env),
    kafkaGroupId: text(env, 'KAFKA_GROUP_ID') ?? 'rollups',
    kafkaTopicPrefix: topicPrefix(env),
    topicPartitions: integer(env, 'TOPIC_PARTITIONS', DEFAULT_TOPIC_PARTITIONS, 1, 10_000),
    flushIntervalMs: integer(env, 'FLUSH_INTERVAL_MS', 250, 10, 60_000),
    flushEvents: integer(env, 'FLUSH_EVENTS', 5_000, 1, 1_000_000),
    flushLingerMs: integer(env, 'FLUSH_LINGER_MS', DEFAULT_FLUSH_LINGER_MS, 0, 5_000),
    fetchMinBytes: integer(env, 'FETCH_MIN_BYTES', DEFAULT_FETCH_MIN_BYTES, 1, 64 * 1024 * 1024),
    flushBytes: integer(env, 'FLUSH_BYTES', DEFAULT_FLUSH_BYTES, 64 * 1024, 1024 * 1024 * 1024),
    partsCacheLimit: integer(
      env,
      'PARTS_CACHE_LIMIT',
      DEFAULT_PARTS_CACHE_LIMIT,
      1_000,
      100_000_000,
    ),
    redisAllowEviction: flag(env, 'REDIS_ALLOW_EVICTION'),
    consumerConcurrency: integer(env, 'CONSUMER_CONCURRENCY', 12, 1, 1_000),
    consumerSessionTimeoutMs: integer(
      env,
      'KAFKA_SESSION_TIMEOUT_MS',
      DEFAULT_SESSION_TIMEOUT_MS,
      6_000,
      300_000,
    ),
    maxFutureSkewUs: duration(env, 'MAX_FUTURE_SKEW', DEFAULT_MAX_FUTURE_SKEW_US),
    recentLogsCapacity: integer(
      env,
      'RECENT_LOGS_CAPACITY',
      DEFAULT_RECENT_LOGS_CAPACITY,
      100,
      1_000_000,
    ),
    host: text(env, 'HOST') ?? '127.0.0.1',
    port: integer(env, 'PORT', DEFAULT_PORT, 0, 65_535),
    metricsPort: text(env, 'METRICS_PORT') === null
      ? null
      : integer(env, 'METRICS_PORT', 0, 0, 65_535),
    ...httpConfig(env),
    ...liveConfig(env),
    ...logsSqlConfig(env),
    apiKeys: apiKeys(env),
    endpointIds,
    ingestMaxBytes: integer(env, 'INGEST_MAX_BYTES', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    ingestMaxItems: integer(env, 'INGEST_MAX_ITEMS', DEFAULT_INGEST_MAX_ITEMS, 1, 1_000_000),
    ingestMaxProjectsPerKeyPerDay: integer(
      env,
      'INGEST_MAX_PROJECTS_PER_KEY_PER_DAY',
      DEFAULT_INGEST_MAX_PROJECTS_PER_KEY_PER_DAY,
      1,
      100_000_000,
    ),
    logflareProjectRef: logflareProjectRef(env),
    resultCacheMs: integer(env, 'RESULT_CACHE_MS', 1_000, 0, 2_000),
    storeTimeoutMs: integer(env, 'STORE_TIMEOUT_MS', DEFAULT_STORE_TIMEOUT_MS, 100, 60_000),
    demo: flag(env, 'DEMO'),
    logLevel: level,
  };
}
