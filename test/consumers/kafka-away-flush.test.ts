/**
 * A flush is not news of Kafka. The consumers write the store, which may well answer while the
 * broker is away; only Kafka's own answers (a heartbeat, a join) may say it is back.
 * Seen in CI (test/service/mid-stream-faults.test.ts): after the broker was killed, the
 * consumers said "Kafka ... is not reachable", then "reachable again after 0 s" (a flush had
 * landed), then "not reachable" again.
 *
 * Here the order is made certain, on a broker of this test's own and the embedded store (the
 * store is not what is tested): a batch's first flush is held while the broker is killed, so
 * that the batch's heartbeat after it finds the broker gone; the batch's last flush is held
 * until the consumers have said so, then lands while the broker is still away.
 *
 * It also holds the batch's failure to be Kafka's: kafkajs's message quotes the socket's
 * (`connect ECONNREFUSED ...`), as a store's does, and the failure was taken for the store's
 * (said at debug level, counted as `store_away`), so the outage went unsaid until the group
 * crashed, and the held flush ran past the store's deadline.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ConsumersHandle, startConsumers } from '../../consumers/start.ts';
import { loadConfig } from '../../src/config.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { extraBrokerService } from '../../tools/services/kafka.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { publishLines, replayProducer } from '../../tools/replay/publish.ts';
import type { Service } from '../../tools/services/service.ts';
import { gone, signal } from '../support/own-services.ts';
import { until } from '../support/poll.ts';
import { describeWithServices } from '../support/services.ts';

/** Events a flush holds at most here: the batch of {@link EVENTS} takes two flushes. */
const FLUSH_EVENTS = 5;
const EVENTS = 8;
/**
 * The group's session timeout: heartbeats go every 3 s (at most), and the consumers give up on
 * a store call after 5 s (at most a quarter of it).
 */
const SESSION_TIMEOUT_MS = 30_000;
/**
 * How long after the broker's kill the first flush is let go: past a heartbeat's interval (none
 * succeeds after the kill), so that the batch's heartbeat after it is due and goes to the broker;
 * well short of the store's deadline for the flush, held since just before the kill, and of the
 * group's crash (kafkajs retries its fetches for about 6 s first).
 */
const HOLD_AFTER_KILL_MS = 3_200;

/** A store whose project commits wait, while `holding`, until {@link release}. */
function heldCommits(store: RollupStore) {
  const waiting: (() => void)[] = [];
  const gate = {
    holding: false,
    held: 0,
    release(): void {
      for (const go of waiting.splice(0)) go();
    },
  };
  const commitProject: RollupStore['commitProject'] = async (commit) => {
    if (gate.holding) {
      gate.held += 1;
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    return await store.commitProject(commit);
  };
  const held = new Proxy(store, {
    get(target, key) {
      if (key === 'commitProject') return commitProject;
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: held, gate };
}

describeWithServices(['kafka', 'jdk', 'maven'], 'Kafka away while a batch is folded', () => {
  const id = randomUUID().slice(0, 8);
  let broker: Service;
  let producer: Producer | null = null;
  let consumers: ConsumersHandle | null = null;
  const logLines: string[] = [];

  beforeAll(async () => {
    broker = extraBrokerService({
      name: 'kafka-away-flush',
      port: await freePort(),
      controllerPort: await freePort(),
    });
    rmSync(serviceDir(broker.name), { recursive: true, force: true });
    await up(broker, () => undefined);
  }, 120_000);

  afterAll(async () => {
    await producer?.disconnect().catch(() => undefined);
    await consumers?.stop();
    if (broker !== undefined) await down(broker);
  }, 90_000);

  test('a flush while the broker is away does not say Kafka is back; Kafka does', async () => {
    const config = loadConfig({
      KAFKA_BROKERS: broker.address,
      KAFKA_TOPIC_PREFIX: `away-flush-${id}.`,
      KAFKA_GROUP_ID: `away-flush-${id}`,
      TOPIC_PARTITIONS: '1',
      FLUSH_EVENTS: String(FLUSH_EVENTS),
      KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    });
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const raw of chunk.toString('utf8').split('\n')) {
            if (raw !== '') logLines.push((JSON.parse(raw) as { msg: string }).msg);
          }
          done();
        },
      }),
    );
    const memory = new MemoryStore({ nowMs: Date.now });
    const { store, gate } = heldCommits(memory);
    consumers = startConsumers(config, store, logger, () => Date.now() * 1000);
    await consumers.running;

    const nowUs = Date.now() * 1000;
    const lines = [
      ...generateEvents({
        seed: 5,
        events: 50,
        nowUs,
        spanUs: 60_000_000,
        invalid: 0,
        projects: 1,
      }),
    ].filter((line) => line.source === 'edge').slice(0, EVENTS);
    expect(lines).toHaveLength(EVENTS);
    const kafka = new Kafka({ brokers: [broker.address], logLevel: logLevel.NOTHING });
    producer = replayProducer(kafka);
    await producer.connect();
    gate.holding = true;
    const topics = topicNames(config.kafkaTopicPrefix);
    await publishLines(lines, { producer, topics, keys: 'project' });
    await producer.disconnect();
    producer = null;

    // The batch's first flush is held: the batch waits for room while the broker is killed.
    await until('the first flush', 60_000, () => Promise.resolve(gate.held === 1 ? true : null));
    const killedAt = Date.now();
    signal(broker, 'SIGKILL');
    await gone(broker);
    await new Promise((resolve) => setTimeout(resolve, killedAt + HOLD_AFTER_KILL_MS - Date.now()));
    gate.release();
    const away = `Kafka (${broker.address}) or its topics is not reachable; retrying`;
    await until(
      'the outage said',
      60_000,
      () => Promise.resolve(logLines.includes(away) ? true : null),
    );
    // The batch's last flush lands while the broker is still away.
    gate.holding = false;
    gate.release();
    const stream = `${topics.edge}/0`;
    await until(
      'every event stored',
      30_000,
      async () => (await memory.readOffset(resumeKey(stream))) === EVENTS ? true : null,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const back = (msg: string) =>
      msg.startsWith(`Kafka (${broker.address}) or its topics is reachable`);
    expect(logLines.filter(back), logLines.join('\n')).toEqual([]);
    expect(logLines.filter((msg) => msg === away), logLines.join('\n')).toHaveLength(1);

    // Kafka back: its answers say so.
    await up(broker, () => undefined);
    await until(
      'Kafka said back',
      120_000,
      () => Promise.resolve(logLines.some(back) ? true : null),
    );
  }, 300_000);
});
