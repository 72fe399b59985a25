import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

const KEY = 'a-valid-key-0123456789';

function refusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  test('an empty environment is the embedded default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      store: { kind: 'memory', maxBytes: 256 * 1024 * 1024 },
      kafkaBrokers: null,
      kafkaGroupId: 'rollups',
      kafkaTopicPrefix: '',
      topicPartitions: 12,
      flushIntervalMs: 250,
      flushEvents: 5_000,
      flushLingerMs: 200,
      fetchMinBytes: 1024 * 1024,
      metricsPort: null,
      maxFutureSkewUs: 300_000_000,
      recentLogsCapacity: 10_000,
      host: '127.0.0.1',
      port: 8080,
      httpRequestTimeoutMs: 30_000,
      httpHeadersTimeoutMs: 10_000,
      httpMaxConnections: 1_024,
      httpMaxConnectionsPerAddress: 64,
      httpWriteTimeoutMs: 10_000,
      answerMaxBytes: 2 * 1024 * 1024,
      ingestMaxItems: 10_000,
      ingestMaxProjectsPerKeyPerDay: 1_000,
      apiKeys: null,
      endpointIds: {},
      resultCacheMs: 1_000,
      storeTimeoutMs: 5_000,
      rateLimit: {
        perSecond: 1_000,
        burst: 2_000,
        addressFrom: { kind: 'socket' },
        maxAddresses: 10_000,
        matchMsPerSecond: 100,
      },
      demo: false,
      logLevel: 'info',
    });
  });

  test('rate limits: off, set, and the address read from a header or nowhere', () => {
    expect(loadConfig({ RATE_LIMIT: 'off' }).rateLimit).toBeNull();
    expect(
      loadConfig({
        RATE_LIMIT_PER_SECOND: '50',
        RATE_LIMIT_BURST: '100',
        RATE_LIMIT_ADDRESS_FROM: 'X-Forwarded-For',
        RATE_LIMIT_MAX_ADDRESSES: '500',
        RATE_LIMIT_MATCH_MS_PER_SECOND: '20',
      }).rateLimit,
    ).toEqual({
      perSecond: 50,
      burst: 100,
      addressFrom: { kind: 'header', name: 'X-Forwarded-For' },
      maxAddresses: 500,
      matchMsPerSecond: 20,
    });
    expect(loadConfig({ RATE_LIMIT_ADDRESS_FROM: 'OFF' }).rateLimit?.addressFrom).toEqual({
      kind: 'off',
    });
  });

  test('the store follows the addresses given, or STORE', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).store).toMatchObject({
      kind: 'redis',
      url: 'redis://127.0.0.1:6379',
    });
    const upstash = loadConfig({
      UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:8079',
      UPSTASH_REDIS_REST_TOKEN: 't',
    }).store;
    expect(upstash).toMatchObject({ kind: 'upstash', url: 'http://127.0.0.1:8079' });
    expect(upstash.kind === 'upstash' && upstash.token.reveal()).toBe('t');
    expect(loadConfig({ STORE: 'memory', REDIS_URL: 'redis://h:1' }).store).toEqual({
      kind: 'memory',
      maxBytes: 256 * 1024 * 1024,
    });
    expect(loadConfig({ MEMORY_STORE_MAX_BYTES: '1048576' }).store).toEqual({
      kind: 'memory',
      maxBytes: 1_048_576,
    });
    expect(loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7001, redis-b:7002,[::1]:7003' }).store)
      .toMatchObject({
        kind: 'redis-cluster',
        nodes: ['127.0.0.1:7001', 'redis-b:7002', '[::1]:7003'],
      });
    expect(
      loadConfig({
        STORE: 'redis-cluster',
        REDIS_URL: 'redis://h:1',
        REDIS_CLUSTER_NODES: 'h:7001',
      }).store,
    ).toMatchObject({ kind: 'redis-cluster', nodes: ['h:7001'] });
  });

  test.each([
    [
      { STORE: 'disk' },
      'STORE="disk" is not allowed: one of memory, redis, redis-cluster, upstash',
    ],
    [
      { REDIS_URL: 'redis://h:1', REDIS_CLUSTER_NODES: 'h:7001' },
      'STORE="" is not allowed: redis or redis-cluster: both REDIS_URL and REDIS_CLUSTER_NODES',
    ],
    [
      { REDIS_CLUSTER_NODES: 'h:7001,h:99999' },
      'REDIS_CLUSTER_NODES="h:7001,h:99999" is not allowed: comma-separated host:port',
    ],
    [{ STORE: 'redis-cluster' }, 'REDIS_CLUSTER_NODES="" is not allowed'],
    [
      { STORE: 'redis' },
      'REDIS_URL="" is not allowed: a redis:// or rediss:// URL when STORE=redis',
    ],
    [
      { REDIS_URL: 'http://h:1' },
      'REDIS_URL="http://h:1" is not allowed: a redis:// or rediss:// URL',
    ],
    [
      { UPSTASH_REDIS_REST_URL: 'http://h:1' },
      'UPSTASH_REDIS_REST_TOKEN="" is not allowed: the REST token, or UPSTASH_REDIS_REST_TOKEN_FILE',
    ],
    [{ KAFKA_BROKERS: 'h:1,nohostport' }, 'KAFKA_BROKERS="h:1,nohostport" is not allowed'],
    [{ TOPIC_PARTITIONS: '0' }, 'TOPIC_PARTITIONS="0" is not allowed: an integer from 1 to 10000'],
    [{ PORT: '8080.5' }, 'PORT="8080.5" is not allowed: an integer from 0 to 65535 (default 8080)'],
    [{ METRICS_PORT: '70000' }, 'METRICS_PORT="70000" is not allowed: an integer from 0 to 65535'],
    [{ KAFKA_SESSION_TIMEOUT_MS: '1000' }, 'an integer from 6000 to 300000'],
    [{ MAX_FUTURE_SKEW: 'soon' }, 'MAX_FUTURE_SKEW="soon" is not allowed: a duration such as 30s'],
    [{ RESULT_CACHE_MS: '5000' }, 'an integer from 0 to 2000'],
    [
      { STORE_TIMEOUT_MS: '0' },
      'STORE_TIMEOUT_MS="0" is not allowed: an integer from 100 to 60000 (default 5000)',
    ],
    [
      { HTTP_MAX_CONNECTIONS_PER_ADDRESS: '-1' },
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS="-1" is not allowed: an integer from 0 to 1000000 (default 64)',
    ],
    [
      { HTTP_WRITE_TIMEOUT_MS: '500' },
      'HTTP_WRITE_TIMEOUT_MS="500" is not allowed: an integer from 1000 to 600000 (default 10000)',
    ],
    [
      { HTTP_ANSWER_MAX_BYTES: '1000' },
      'HTTP_ANSWER_MAX_BYTES="1000" is not allowed: an integer from 262144 to 268435456 (default 2097152)',
    ],
    [
      { FLUSH_LINGER_MS: '6000' },
      'FLUSH_LINGER_MS="6000" is not allowed: an integer from 0 to 5000 (default 200)',
    ],
    [
      { FETCH_MIN_BYTES: '0' },
      'FETCH_MIN_BYTES="0" is not allowed: an integer from 1 to 67108864 (default 1048576)',
    ],
    [
      { INGEST_MAX_ITEMS: '0' },
      'INGEST_MAX_ITEMS="0" is not allowed: an integer from 1 to 1000000',
    ],
    [
      { INGEST_MAX_PROJECTS_PER_KEY_PER_DAY: '0' },
      'INGEST_MAX_PROJECTS_PER_KEY_PER_DAY="0" is not allowed: an integer from 1 to 100000000 ' +
      '(default 1000)',
    ],
    [
      { MEMORY_STORE_MAX_BYTES: '512MB' },
      'MEMORY_STORE_MAX_BYTES="512MB" is not allowed: an integer from 1048576 to ' +
      '9007199254740991 (default 268435456)',
    ],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL="loud" is not allowed: fatal, error, warn, info'],
    [{ DEMO: 'maybe' }, 'DEMO="maybe" is not allowed: 1, true, yes, on or 0, false, no, off'],
    [
      { RATE_LIMIT: 'some' },
      'RATE_LIMIT="some" is not allowed: 1, true, yes, on or 0, false, no, off (default on)',
    ],
    [{ RATE_LIMIT_PER_SECOND: '0' }, 'RATE_LIMIT_PER_SECOND="0" is not allowed: an integer from 1'],
    [{ RATE_LIMIT_BURST: '1.5' }, 'RATE_LIMIT_BURST="1.5" is not allowed: an integer from 1'],
    [
      { RATE_LIMIT_ADDRESS_FROM: 'X Forwarded' },
      'RATE_LIMIT_ADDRESS_FROM="X Forwarded" is not allowed: socket (the default), off, or the name',
    ],
    [{ RATE_LIMIT_MATCH_MS_PER_SECOND: '2000' }, 'an integer from 1 to 1000 (default 100)'],
    [{ KAFKA_TOPIC_PREFIX: 'a/b' }, 'KAFKA_TOPIC_PREFIX="a/b" is not allowed'],
    [{ ENDPOINT_ID_LOGS_ALL: 'logs' }, 'ENDPOINT_ID_LOGS_ALL="logs" is not allowed: a UUID'],
  ])(
    '%j is refused with a message naming the variable, the value and what is allowed',
    (env, message) => {
      expect(refusal(env)).toContain(message);
    },
  );

  test('behind a proxy header, the per-address connection limit is off unless set', () => {
    // Every connection then comes from the proxy: a cap per address would cut the proxy off.
    const behindProxy = { RATE_LIMIT_ADDRESS_FROM: 'X-Forwarded-For' };
    expect(loadConfig(behindProxy).httpMaxConnectionsPerAddress).toBe(0);
    expect(loadConfig({ ...behindProxy, RATE_LIMIT: 'off' }).httpMaxConnectionsPerAddress).toBe(0);
    expect(
      loadConfig({ ...behindProxy, HTTP_MAX_CONNECTIONS_PER_ADDRESS: '16' })
        .httpMaxConnectionsPerAddress,
    ).toBe(16);
    expect(loadConfig({ RATE_LIMIT_ADDRESS_FROM: 'socket' }).httpMaxConnectionsPerAddress).toBe(64);
    expect(loadConfig({ RATE_LIMIT_ADDRESS_FROM: 'off' }).httpMaxConnectionsPerAddress).toBe(64);
  });

  test('the per-address connection limit can be turned off with 0', () => {
    expect(loadConfig({ HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0' }).httpMaxConnectionsPerAddress)
      .toBe(0);
  });

  test('an API key is never part of a refusal, only its position and length', () => {
    const message = refusal({ API_KEYS: `${KEY},short-secret` });
    expect(message).toBe(
      'API_KEYS="<key #2, 12 characters>" is not allowed: keys of 16 to 256 printable ASCII characters, comma-separated',
    );
    expect(message).not.toContain('short-secret');
  });

  test('keys come from API_KEYS and API_KEYS_FILE together, blank entries ignored', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'config-')), 'keys');
    writeFileSync(file, `second-key-0123456789\n\nthird-key-01234567890\n`);
    expect(loadConfig({ API_KEYS: ` ${KEY} ,`, API_KEYS_FILE: file }).apiKeys).toEqual([
      KEY,
      'second-key-0123456789',
      'third-key-01234567890',
    ]);
    expect(refusal({ API_KEYS_FILE: join(file, 'missing') })).toMatch(
      /^API_KEYS_FILE=".*missing" is not allowed: a readable file of keys/,
    );
  });

  test('endpoint ids are overridden per endpoint and kept in lower case', () => {
    const id = 'ABCDEF01-2345-4678-9ABC-DEF012345678';
    expect(loadConfig({ ENDPOINT_ID_API_COUNTS: id }).endpointIds).toEqual({
      'usage.api-counts': id.toLowerCase(),
    });
  });

  test('blank values are absent values', () => {
    expect(loadConfig({ PORT: '  ', KAFKA_BROKERS: '' }).port).toBe(8080);
    expect(loadConfig({ METRICS_PORT: ' ' }).metricsPort).toBeNull();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ KAFKA_BROKERS: ' 127.0.0.1:9092 , [::1]:9093 ' }).kafkaBrokers).toEqual([
      '127.0.0.1:9092',
      '[::1]:9093',
    ]);
  });
});
