/**
 * The consumers role's operations port (`METRICS_PORT`), on the real broker and Redis: dead
 * letters counted by the kind of rule the message broke, the lag of every partition it holds
 * (the topic's end minus the stored offset: 0 once drained), paused partitions, and /readyz.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Service } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { parse } from '../../src/events/parse.ts';
import { generatedStream } from '../rollup/fold-and-read.ts';
import { startTestService } from '../support/service.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, PARTITIONS, type World } from './harness.ts';

/** The value of the sample `name{labels}` in a Prometheus text exposition, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describeWithServices(['kafka', 'redis'], 'the consumers role on METRICS_PORT', (services) => {
  let world: World;
  let service: Service | null = null;
  let base = '';
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const stream = generatedStream(nowUs, 300);
  // Only valid lines of the generated stream: the dead letters are the ones below.
  const valid = stream.lines.filter(({ source, line }) => parse(line, source, { nowUs }).ok);
  const invalid = [
    ...Array.from({ length: 3 }, (_, i) => ({ source: 'edge' as const, line: `{"not json ${i}` })),
    ...Array.from({ length: 2 }, (_, i) => ({
      source: 'function-edge' as const,
      line: JSON.stringify({
        id: `future-${i}`,
        timestamp: nowUs + 3_600_000_000,
        metadata: [{ project_ref: 'metricsfutureproject', response: [{ status_code: 200 }] }],
      }),
    })),
  ];

  beforeAll(async () => {
    world = await createWorld(services.kafka.brokers, {
      kind: 'redis',
      url: services.redis.url,
    });
    const config = loadConfig({
      KAFKA_BROKERS: services.kafka.brokers.join(','),
      KAFKA_TOPIC_PREFIX: world.prefix,
      KAFKA_GROUP_ID: world.groupId,
      TOPIC_PARTITIONS: String(PARTITIONS),
      FLUSH_INTERVAL_MS: '100',
      REDIS_URL: services.redis.url,
      METRICS_PORT: '0',
    });
    service = await startTestService({
      config,
      logger: createLogger('warn', 'consumer-metrics'),
      role: 'consumers',
      onFatal: (message) => {
        throw new Error(message);
      },
    });
    base = service.url ?? '';
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await world?.close();
  }, 60_000);

  test(
    '/readyz waits for the group; /metrics counts what was folded and dead-lettered',
    async () => {
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const deadline = Date.now() + 60_000;
      while ((await fetch(`${base}/readyz`)).status !== 200) {
        if (Date.now() > deadline) throw new Error(await (await fetch(`${base}/readyz`)).text());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await world.publish([...valid, ...invalid], 'random');
      await world.drained(60_000);
      const text = await (await fetch(`${base}/metrics`)).text();

      expect(sample(text, 'consumer_dead_letters_total{kind="json"}')).toBe(3);
      expect(sample(text, 'consumer_dead_letters_total{kind="future"}')).toBe(2);
      expect(sample(text, 'consumer_dead_letters_total{kind="schema"}')).toBe(0);
      // Nothing replayed in this run: no message was found already folded.
      expect(sample(text, 'consumer_skipped_messages_total')).toBe(0);
      expect(sample(text, 'consumer_partitions_paused')).toBe(0);
      // One member holds every partition of every source topic; once drained, none lags. The
      // two that were published to are reported whole (the others as the member resumes them).
      const lags = text.split('\n').filter((line) => line.startsWith('consumer_lag_events{'));
      const published = lags.filter((line) => /logs\.(edge|function-edge)"/.test(line));
      expect(published).toHaveLength(2 * PARTITIONS);
      for (const line of lags) expect(line).toMatch(/ 0$/);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const elsewhere = await fetch(`${base}/api/endpoints/logs.all`);
      expect(elsewhere.status).toBe(404);
      expect(await elsewhere.text()).toContain('/metrics, /healthz and /readyz');
    },
    120_000,
  );
});
