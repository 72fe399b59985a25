/**
 * The real Kafka path: topics through consumers/topics.ts, keyed messages through a kafkajs
 * producer, back through a consumer group of the real broker.
 */
import { randomBytes } from 'node:crypto';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureTopics, TOPICS } from '../../src/kafka/topics.ts';
import { LOGFLARE_SOURCES } from '../../src/events/logflare-sources.ts';
import { describeWithServices } from '../support/services.ts';

const KEYS = 24;
const MESSAGES_PER_KEY = 10;

describeWithServices(['kafka'], 'kafka smoke', ({ kafka }) => {
  const runId = `${Date.now()}-${randomBytes(3).toString('hex')}`;
  const topic = `smoke.kafka.${runId}`;
  const client = new Kafka({
    clientId: `smoke-${runId}`,
    brokers: [...kafka.brokers],
    logLevel: logLevel.NOTHING,
  });
  let admin: Admin;

  beforeAll(async () => {
    admin = client.admin();
    await admin.connect();
  });

  afterAll(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  test('ensureTopics creates a 12-partition topic once, then reports it as existing', async () => {
    expect(await ensureTopics(admin, { partitions: 12, topics: [topic] })).toEqual([
      { topic, action: 'created', partitions: 12, expectedPartitions: 12 },
    ]);
    expect(await ensureTopics(admin, { partitions: 12, topics: [topic] })).toEqual([
      { topic, action: 'existed', partitions: 12, expectedPartitions: 12 },
    ]);
    // A different configured count is reported, never applied to an existing topic.
    expect(await ensureTopics(admin, { partitions: 6, topics: [topic] })).toEqual([
      { topic, action: 'existed', partitions: 12, expectedPartitions: 6 },
    ]);
  });

  test("ensureTopics with defaults covers the project's topics and is idempotent", async () => {
    const first = await ensureTopics(admin);
    const second = await ensureTopics(admin);
    const names = [
      TOPICS.edge,
      TOPICS['function-edge'],
      ...LOGFLARE_SOURCES.map((source) => `logs.source.${source}`),
      TOPICS.deadLetter,
    ];
    expect(first.map((report) => report.topic)).toEqual(names);
    expect(second.map((report) => [report.topic, report.action])).toEqual(
      names.map((name) => [name, 'existed']),
    );
    expect(second.map((report) => report.partitions)).toEqual(
      first.map((report) => report.partitions),
    );
  });

  test('every keyed message comes back through a consumer group, each key on one partition', async () => {
    await ensureTopics(admin, { partitions: 12, topics: [topic] });
    const ids = Array.from({ length: KEYS * MESSAGES_PER_KEY }, (_, i) => `${runId}-${i}`);
    const sent = ids.map((id, i) => ({
      key: `project-${i % KEYS}`,
      value: JSON.stringify({ id, seq: Math.floor(i / KEYS) }),
    }));
    const producer = client.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await producer.send({ topic, messages: sent, acks: -1 });
    } finally {
      await producer.disconnect();
    }

    // A consumer group delivers at least once: a rebalance soon after joining (the new topic's
    // metadata arriving) may deliver again what was not committed yet. So the run waits for
    // every distinct id, and the checks below take each id's first delivery.
    const received: { key: string; id: string; seq: number; partition: number }[] = [];
    const distinct = new Set<string>();
    const consumer = client.consumer({ groupId: `smoke-${runId}` });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`received ${distinct.size} of ${sent.length} messages in 25 s`)),
          25_000,
        );
        consumer.run({
          eachMessage: ({ partition, message }) => {
            const body = JSON.parse(String(message.value)) as { id: string; seq: number };
            received.push({ key: String(message.key), id: body.id, seq: body.seq, partition });
            distinct.add(body.id);
            if (distinct.size === sent.length) resolve();
            return Promise.resolve();
          },
        }).catch(reject);
      }).finally(() => clearTimeout(timer));
    } finally {
      await consumer.disconnect();
    }

    expect([...distinct].sort()).toEqual([...ids].sort());
    const seen = new Set<string>();
    const firsts = received.filter((message) => !seen.has(message.id) && seen.add(message.id));
    const partitionsByKey = new Map<string, Set<number>>();
    for (const message of received) {
      partitionsByKey.set(
        message.key,
        (partitionsByKey.get(message.key) ?? new Set<number>()).add(message.partition),
      );
    }
    expect(partitionsByKey.size).toBe(KEYS);
    for (const [key, partitions] of partitionsByKey) {
      expect([key, partitions.size]).toEqual([key, 1]);
    }
    // 24 keys over 12 partitions: the keys really are spread, not all on one partition.
    expect(new Set(received.map((message) => message.partition)).size).toBeGreaterThan(1);
    // Within a key (one partition), order is the order of production.
    for (const key of partitionsByKey.keys()) {
      const seqs = firsts.filter((message) => message.key === key).map((message) => message.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
  });
});
