/**
 * The operator's metrics on real services: a consumers-role process and an API-role process
 * (each as service/start.ts wires it) against the real broker and Redis. Events are published,
 * folded and read back; then both `/metrics` are scraped and must show the freshness,
 * throughput, flush and store series moved as the traffic says, no label whose values grow
 * with the data (a project, a host, a function id), and every series the Grafana dashboard and
 * the alert rules query (so neither can drift from the code).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Service } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { generatedStream } from '../rollup/fold-and-read.ts';
import { createWorld, PARTITIONS, type World } from '../consumers/harness.ts';
import { exportedNames, metricNames, type Sample, samples } from '../deploy/exposition.ts';
import { startTestService } from '../support/service.ts';
import { describeWithServices, redisDatabaseUrl } from '../support/services.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const KEY = 'operator-metrics-test-key-0123456789';

/** Series Prometheus makes itself for every target (not exported by the service). */
const SCRAPE_SERIES = new Set(['up']);

/** Every label a series of the service may carry: fixed words, never data. */
const LABELS = new Set([
  // ours
  'topic',
  'partition',
  'kind',
  'reason',
  'command',
  'endpoint',
  'status',
  'how',
  'side',
  'scope',
  'limit',
  'source',
  'outcome',
  // histograms
  'le',
  // prom-client's process and Node metrics
  'version',
  'major',
  'minor',
  'patch',
  'space',
  'type',
]);

/** Most distinct values any one label may take across a scrape. */
const MAX_LABEL_VALUES = 32;

/** The sum of the samples of `name` whose labels include `labels`. */
function total(found: readonly Sample[], name: string, labels: Record<string, string> = {}) {
  return found
    .filter((sample) =>
      sample.name === name &&
      Object.entries(labels).every(([label, value]) => sample.labels[label] === value)
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Each label's distinct values across a scrape. */
function labelValues(found: readonly Sample[]): Map<string, Set<string>> {
  const values = new Map<string, Set<string>>();
  for (const sample of found) {
    for (const [label, value] of Object.entries(sample.labels)) {
      const seen = values.get(label) ?? new Set<string>();
      seen.add(value);
      values.set(label, seen);
    }
  }
  return values;
}

/** The PromQL expressions of the dashboard's panels and of the alert rules. */
function queries(): { dashboard: string[]; rules: string[] } {
  const dashboard = JSON.parse(
    readFileSync(join(ROOT, 'deploy/grafana/streaming-endpoints.json'), 'utf8'),
  ) as { panels: { targets?: { expr: string }[] }[] };
  const alerts = parseYaml(
    readFileSync(join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8'),
  ) as { groups: { rules: { expr: string }[] }[] };
  return {
    dashboard: dashboard.panels.flatMap((panel) => (panel.targets ?? []).map(({ expr }) => expr)),
    rules: alerts.groups.flatMap((group) => group.rules.map(({ expr }) => expr)),
  };
}

describeWithServices(
  ['kafka', 'redis'],
  'operator metrics of a consumer and an API',
  (services) => {
    let world: World;
    let consumers: Service | null = null;
    let api: Service | null = null;
    // A database of its own: emptied at the start, and no other suite's flush disturbs it.
    const redisUrl = redisDatabaseUrl(services.redis.url, 6);
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 400);
    const invalid = Array.from({ length: 4 }, (_, i) => ({
      source: 'edge' as const,
      line: `{"not json ${i}`,
    }));

    beforeAll(async () => {
      world = await createWorld(services.kafka.brokers, { kind: 'redis', url: redisUrl });
      const settings = {
        KAFKA_BROKERS: services.kafka.brokers.join(','),
        KAFKA_TOPIC_PREFIX: world.prefix,
        KAFKA_GROUP_ID: world.groupId,
        TOPIC_PARTITIONS: String(PARTITIONS),
        FLUSH_INTERVAL_MS: '100',
        REDIS_URL: redisUrl,
        API_KEYS: KEY,
        RESULT_CACHE_MS: '2000',
      };
      const onFatal = (message: string) => {
        throw new Error(message);
      };
      consumers = await startTestService({
        config: loadConfig({ ...settings, METRICS_PORT: '0' }),
        logger: createLogger('warn', 'operator-metrics-consumers'),
        role: 'consumers',
        onFatal,
      });
      api = await startTestService({
        config: loadConfig({ ...settings, PORT: '0' }),
        logger: createLogger('warn', 'operator-metrics-api'),
        role: 'api',
        onFatal,
      });
    }, 90_000);

    afterAll(async () => {
      await api?.stop();
      await consumers?.stop();
      await world?.close();
    }, 60_000);

    test(
      'freshness, throughput, flush and store series move with the traffic; labels stay bounded; ' +
        'the dashboard and the rules query only exported series',
      async () => {
        const consumerUrl = consumers?.url ?? '';
        const apiUrl = api?.url ?? '';
        const deadline = Date.now() + 60_000;
        while ((await fetch(`${consumerUrl}/readyz`)).status !== 200) {
          if (Date.now() > deadline) {
            throw new Error(
              await (await fetch(`${consumerUrl}/readyz`)).text(),
            );
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const published = [...stream.lines, ...invalid];
        await world.publish(published);
        await world.drained(90_000);
        // Identical requests at once: one reads the store, the others share its answer.
        const project = stream.events[0]?.project ?? '';
        const path = `/api/endpoints/usage.api-counts?project=${project}&interval=hourly`;
        const answers = await Promise.all(
          Array.from(
            { length: 4 },
            () => fetch(`${apiUrl}${path}`, { headers: { 'X-API-KEY': KEY } }),
          ),
        );
        for (const answer of answers) expect(answer.status).toBe(200);

        const consumerText = await (await fetch(`${consumerUrl}/metrics`)).text();
        const apiText = await (await fetch(`${apiUrl}/metrics`)).text();
        const fromConsumer = samples(consumerText);
        const fromApi = samples(apiText);

        // Throughput: every message is folded or dead-lettered, once.
        const folded = total(fromConsumer, 'consumer_events_folded_total');
        const deadLettered = total(fromConsumer, 'consumer_events_dead_lettered_total');
        expect(folded).toBeGreaterThan(0);
        expect(folded + deadLettered).toBe(published.length);
        expect(deadLettered).toBe(total(fromConsumer, 'consumer_dead_letters_total'));
        // The generated stream has invalid lines of its own; these four are among the json kind.
        expect(total(fromConsumer, 'consumer_dead_letters_total', { kind: 'json' }))
          .toBeGreaterThanOrEqual(invalid.length);
        expect(total(fromConsumer, 'consumer_events_folded_total', { topic: world.topics.edge }))
          .toBeGreaterThan(0);
        // Flushes: their sizes add up to every message; each was timed.
        const flushes = total(fromConsumer, 'consumer_flush_duration_seconds_count');
        expect(flushes).toBeGreaterThan(0);
        expect(total(fromConsumer, 'consumer_flush_events_sum')).toBe(published.length);
        expect(total(fromConsumer, 'consumer_flush_events_count')).toBe(flushes);
        // Freshness: one observation per flush with a Kafka timestamp, all of them here.
        expect(total(fromConsumer, 'consumer_freshness_seconds_count')).toBe(flushes);
        expect(total(fromConsumer, 'consumer_freshness_seconds_sum')).toBeGreaterThanOrEqual(0);
        // The store as the consumers saw it: commits, resume offsets, no failures.
        expect(
          total(fromConsumer, 'store_command_duration_seconds_count', { command: 'commitProject' }),
        ).toBeGreaterThan(0);
        expect(
          total(fromConsumer, 'store_command_duration_seconds_count', { command: 'advanceOffset' }),
        ).toBeGreaterThan(0);
        expect(total(fromConsumer, 'store_command_errors_total')).toBe(0);
        expect(total(fromConsumer, 'store_writes_refused_total')).toBe(0);
        expect(total(fromConsumer, 'consumer_batch_failures_total')).toBe(0);
        expect(total(fromConsumer, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
        // The API: its reads of the store, and answers shared by identical requests.
        expect(total(fromApi, 'api_answers_total', { how: 'computed' })).toBeGreaterThan(0);
        expect(total(fromApi, 'api_answers_total', { how: 'reused' })).toBeGreaterThan(0);
        expect(total(fromApi, 'api_answers_total')).toBe(answers.length);
        expect(total(fromApi, 'store_command_duration_seconds_count')).toBeGreaterThan(0);
        expect(
          total(fromApi, 'http_requests_total', { endpoint: 'usage.api-counts', status: '200' }),
        )
          .toBe(answers.length);

        // Bounded labels: fixed names, few values, and never a project of the data.
        const projects = new Set(stream.events.map((event) => event.project));
        for (const found of [fromConsumer, fromApi]) {
          for (const [label, values] of labelValues(found)) {
            expect(LABELS.has(label), `label ${label}`).toBe(true);
            expect(values.size, `values of ${label}`).toBeLessThanOrEqual(MAX_LABEL_VALUES);
            for (const value of values) {
              expect(projects.has(value), `${label}=${value}`).toBe(
                false,
              );
            }
          }
        }

        // The dashboard and the alert rules query only what the processes export.
        const exported = new Set([
          ...exportedNames(consumerText),
          ...exportedNames(apiText),
          ...SCRAPE_SERIES,
        ]);
        const { dashboard, rules } = queries();
        expect(dashboard.length).toBeGreaterThan(0);
        for (const expr of [...dashboard, ...rules]) {
          const names = metricNames(expr);
          expect(names, expr).not.toEqual([]);
          for (const name of names) expect(exported.has(name), `${name} in ${expr}`).toBe(true);
        }
      },
      180_000,
    );
  },
);
