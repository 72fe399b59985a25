/**
 * `publishLines` (the replay's and the soak's producer) against a real broker: a request holds at
 * most `maxRequestBytes`, so one busy project's lines (one partition, whose batch the broker takes
 * as one message) never make a batch over the broker's largest message. Before the bound, the
 * soak at 7,300 events/s (half a second's events per request) died at minute 12 with
 * MESSAGE_TOO_LARGE and left its consumers and API running.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { ensureTopics, topicNames } from '../../src/kafka/topics.ts';
import { publishLines, replayProducer, type SourcedLine } from '../../tools/replay/publish.ts';
import { describeWithServices } from '../support/services.ts';

describeWithServices(['kafka'], 'publishLines', ({ kafka: broker }) => {
  const kafka = new Kafka({
    clientId: 'publish-lines',
    brokers: [...broker.brokers],
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  const producer = replayProducer(kafka);
  const topics = topicNames(`publish-lines-${randomUUID().slice(0, 8)}.`);

  beforeAll(async () => {
    await admin.connect();
    await ensureTopics(admin, { partitions: 3, topics: Object.values(topics) });
    await producer.connect();
  }, 60_000);

  afterAll(async () => {
    await producer.disconnect();
    await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
    await admin.disconnect();
  });

  test("a busy project's lines go out in requests the broker takes", async () => {
    // 3,000 lines of 1 KiB for one project: 3 MiB in what would be one request of one partition.
    const lines: SourcedLine[] = Array.from({ length: 3_000 }, (_, index) => ({
      source: 'edge',
      line: JSON.stringify({ project: 'busyprojectref', index, pad: 'x'.repeat(1_000) }),
    }));
    const sent = await publishLines(lines, { producer, topics, batchSize: 5_000 });
    expect(sent).toBe(3_000);
    const offsets = await admin.fetchTopicOffsets(topics.edge);
    const ends = offsets.map((entry) => Number(entry.high));
    // Keyed: all in one partition, in order.
    expect(ends.reduce((sum, end) => sum + end, 0)).toBe(3_000);
    expect(ends.filter((end) => end > 0)).toHaveLength(1);
  }, 120_000);
});
