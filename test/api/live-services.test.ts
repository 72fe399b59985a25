/**
 * Live answers end to end on real services (issue 53, "Done when"): the service (`role=all`)
 * on Kafka with one Redis, then with a Redis Cluster; streams opened by a plain HTTP client and by
 * a real `EventSource` in Chromium (the key as `api_key`); events published straight to Kafka,
 * then posted to `POST /api/ingest` (which publishes them); every change pushed, once, exact:
 *
 * - with one partition per topic, the consumers fold each topic in its order, so every pushed
 *   answer is the reference evaluator's over a prefix of its topic's lines (each endpoint reads
 *   one topic), read at the moment it arrived, and each later push is of a longer prefix;
 * - the last pushed answer is the reference over every line;
 * - no two consecutive events of a stream are the same answer.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { EndpointName } from '../../src/contract/registry.ts';
import type { Row } from '../../src/contract/rows.ts';
import { loadConfig } from '../../src/config.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { MINUTE_US } from '../../src/reference/time.ts';
import type { Service } from '../../service/start.ts';
import { queriesFor, validEvents } from '../rollup/fold-and-read.ts';
import { startReadyService } from '../support/service.ts';
import { describeWithServices } from '../support/services.ts';
import { TEST_KEY } from './helpers/app.ts';
import { EventReader, type ServerEvent } from './helpers/event-stream.ts';
import { matches } from './helpers/http.ts';

type Line = { source: 'edge' | 'function-edge'; line: string };

/** The topic each endpoint's answer reads. */
const SOURCE_OF: Record<EndpointName, Line['source']> = {
  'functions.invocation-stats': 'function-edge',
  'usage.api-counts': 'edge',
  'logs.all': 'edge',
};

/** A received event, with when it arrived (Unix µs). */
type Received = ServerEvent & { readonly atUs: number };

/**
 * The length of the shortest prefix (from `from`) of `prefixes` whose reference answer equals
 * `data` at one of `instants`; -1 when none does.
 */
function prefixOf(
  endpoint: EndpointName,
  query: string,
  data: string,
  prefixes: readonly LogEvent[][],
  from: number,
  instants: readonly number[],
): number {
  const rows = (JSON.parse(data) as { result: Row[] }).result;
  for (let k = from; k < prefixes.length; k++) {
    for (const nowUs of instants) {
      const expected = evaluateEndpoint(
        endpoint,
        prefixes[k] ?? [],
        new URLSearchParams(query),
        nowUs,
      );
      if (expected.ok && matches(endpoint, rows, expected.rows)) return k;
    }
  }
  return -1;
}

describeWithServices(
  ['kafka', 'redis', 'redisCluster', 'browser'],
  'live answers on Kafka and Redis, to an HTTP client and an EventSource',
  ({ kafka, redis, redisCluster, browser: found }) => {
    let browser: Browser | null = null;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: found.executablePath,
        args: ['--no-sandbox', '--disable-dev-shm-usage'],
      });
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    const targets = [
      ['one Redis', { REDIS_URL: redis.url }],
      ['a Redis Cluster', { REDIS_CLUSTER_NODES: redisCluster.nodes.join(',') }],
    ] as const;
    for (const [name, storeEnv] of targets) {
      describe(name, () => {
        const prefix = `live-${randomUUID().slice(0, 8)}.`;
        const topics = topicNames(prefix);
        let service: Service | null = null;

        beforeAll(async () => {
          const config = loadConfig({
            ...storeEnv,
            KAFKA_BROKERS: kafka.brokers.join(','),
            KAFKA_TOPIC_PREFIX: prefix,
            KAFKA_GROUP_ID: `${prefix}group`,
            TOPIC_PARTITIONS: '1',
            FLUSH_INTERVAL_MS: '100',
            FLUSH_EVENTS: '150',
            API_KEYS: TEST_KEY,
            PORT: '0',
          });
          ({ service } = await startReadyService(config, 'live-e2e', TEST_KEY));
        }, 120_000);

        afterAll(async () => {
          await service?.stop();
          const admin = new Kafka({ brokers: [...kafka.brokers], logLevel: logLevel.NOTHING })
            .admin();
          await admin.connect();
          await admin.deleteTopics({ topics: Object.values(topics) });
          await admin.disconnect();
        }, 60_000);

        test(
          'every change pushed, exact and once, through Kafka and through HTTP ingest',
          async () => {
            if (service === null) throw new Error('the service did not start');
            const url = service.url;
            const nowUs = Date.now() * 1000;
            // Projects of their own (the seed picks them): the store may hold other runs' data.
            const lines: Line[] = [...generateEvents({
              seed: Math.floor(Math.random() * 2 ** 31),
              events: 900,
              nowUs,
              spanUs: 20 * MINUTE_US,
              outOfOrder: 0.05,
              invalid: 0.01,
              projects: 3,
            })];
            // Answers that change with events only, not as seconds pass: their windows move by
            // the hour, the minute, or not at all within the test (logs.all keeps 90 days here).
            const wanted = new Set(['1day', 'daily', '']);
            const perEndpoint = new Map<string, number>();
            const queries = queriesFor(validEvents(lines, nowUs), nowUs).filter(
              ([endpoint, query]) => {
                const params = new URLSearchParams(query);
                const fits = endpoint === 'logs.all'
                  ? params.get('project_tier') === 'ENTERPRISE'
                  : wanted.has(params.get('interval') ?? '') && !params.has('function_id');
                const taken = perEndpoint.get(endpoint) ?? 0;
                if (!fits || taken >= 2) return false;
                perEndpoint.set(endpoint, taken + 1);
                return true;
              },
            );
            expect(new Set(queries.map(([endpoint]) => endpoint)).size).toBe(3);
            const paths = queries.map(([endpoint, query]) =>
              `/api/endpoints/query/${endpoint}?${query}`
            );

            // A plain HTTP client, and an EventSource in Chromium, on every query.
            const readers = await Promise.all(paths.map(async (path) => {
              const response = await fetch(`${url}${path}`, {
                headers: { 'X-API-KEY': TEST_KEY, Accept: 'text/event-stream' },
              });
              expect(response.status, path).toBe(200);
              if (response.body === null) throw new Error('no body');
              return new EventReader(response.body);
            }));
            const page: Page = await browser!.newPage();
            await page.goto(`${url}/`);
            await page.evaluate(({ paths, key }) => {
              const received: { id: string; data: string; atUs: number }[][] = [];
              Reflect.set(globalThis, 'received', received);
              paths.forEach((path, i) => {
                received[i] = [];
                const source = new EventSource(`${path}&api_key=${encodeURIComponent(key)}`);
                source.onmessage = (event) =>
                  received[i]!.push({
                    id: event.lastEventId,
                    data: event.data,
                    atUs: Date.now() * 1000,
                  });
              });
            }, { paths, key: TEST_KEY });
            await page.waitForFunction((count) => {
              const received = Reflect.get(globalThis, 'received') as unknown[][];
              return received.every((events) => events.length > 0) && received.length === count;
            }, paths.length);

            const ingestedMs = Date.now();
            // Half the lines straight to Kafka, the rest through the ingest route.
            const half = Math.floor(lines.length / 2);
            const producer = new Kafka({ brokers: [...kafka.brokers], logLevel: logLevel.NOTHING })
              .producer();
            await producer.connect();
            for (const source of ['edge', 'function-edge'] as const) {
              await producer.send({
                topic: topics[source],
                messages: lines.slice(0, half).filter((line) => line.source === source)
                  .map((line) => ({ value: line.line })),
              });
            }
            await producer.disconnect();
            for (const source of ['edge', 'function-edge'] as const) {
              const response = await fetch(`${url}/api/ingest/${source}`, {
                method: 'POST',
                headers: { 'X-API-KEY': TEST_KEY, 'Content-Type': 'application/x-ndjson' },
                body: lines.slice(half).filter((line) => line.source === source)
                  .map((line) => line.line).join('\n'),
              });
              expect(response.status).toBe(202);
            }

            // Each topic's lines in the order they were published: its prefixes' valid events.
            const ordered = {
              edge: [...lines.slice(0, half), ...lines.slice(half)].filter((l) =>
                l.source === 'edge'
              ),
              'function-edge': [...lines.slice(0, half), ...lines.slice(half)]
                .filter((l) => l.source === 'function-edge'),
            };
            const prefixes = {
              edge: ordered.edge.map((_, k) => validEvents(ordered.edge.slice(0, k), nowUs)),
              'function-edge': ordered['function-edge'].map((_, k) =>
                validEvents(ordered['function-edge'].slice(0, k), nowUs)
              ),
            };
            for (const source of ['edge', 'function-edge'] as const) {
              prefixes[source].push(validEvents(ordered[source], nowUs));
            }
            // Until the last answer of every stream is the reference over every line.
            const final = (i: number, data: string | undefined) => {
              const [endpoint, query] = queries[i]!;
              const all = prefixes[SOURCE_OF[endpoint]];
              const at = Date.now() * 1000;
              return data !== undefined &&
                prefixOf(endpoint, query, data, all, all.length - 1, [at, at - 1_000_000]) >= 0;
            };
            const browserEvents = async () =>
              await page.evaluate(() => Reflect.get(globalThis, 'received')) as Received[][];
            const deadline = Date.now() + 60_000;
            for (;;) {
              const inBrowser = await browserEvents();
              const done = readers.every((reader, i) => final(i, reader.events.at(-1)?.data)) &&
                inBrowser.every((events, i) => final(i, events.at(-1)?.data));
              if (done || Date.now() > deadline) break;
              await new Promise((resolve) => setTimeout(resolve, 500));
            }

            const inBrowser = await browserEvents();
            const lastMs = Math.max(...readers.map((reader) => reader.events.at(-1)?.atMs ?? 0));
            console.log(
              `live (${name}): the last answers arrived ${
                lastMs - ingestedMs
              } ms after the ingest began`,
            );
            for (const [i, [endpoint, query]] of queries.entries()) {
              const all = prefixes[SOURCE_OF[endpoint]];
              const clients: [string, readonly { data: string; id: string | null }[]][] = [
                ['HTTP client', readers[i]!.events],
                ['EventSource', inBrowser[i]!],
              ];
              for (const [client, events] of clients) {
                const label = `${client}: ${endpoint}?${query}`;
                expect(events.length, `${label}: no change pushed`).toBeGreaterThan(1);
                let at = 0;
                for (const [n, event] of events.entries()) {
                  if (n > 0) {
                    expect(event.data, `${label}: sent twice`).not.toBe(events[n - 1]!.data);
                  }
                  const received = Date.now() * 1000;
                  const k = prefixOf(endpoint, query, event.data, all, at, [received, nowUs]);
                  expect(k, `${label}: event ${n} is no prefix's answer from ${at}`)
                    .toBeGreaterThanOrEqual(at);
                  at = k;
                }
                const last = events.at(-1)?.data ?? '';
                const whole = prefixOf(endpoint, query, last, all, all.length - 1, [nowUs]);
                expect(whole, `${label}: the last answer is not the whole stream's`)
                  .toBe(all.length - 1);
              }
            }
            await page.close();
            for (const reader of readers) await reader.cancel();
          },
          180_000,
        );
      });
    }
  },
);
