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
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ConsumersHandle, startConsumers } from '../../consumers/start.ts';
import { loadConfig } from '../../src/config.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { CommitResult, ProjectCommit } from '../../src/store/port.ts';
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
import { messagesLogger } from '../support/logged-messages.ts';
import { batchFailures } from './member-metrics.ts';

/** Events a flush holds at most here: the batch of {@link EVENTS} takes two flushes. */
const FLUSH_EVENTS = 5;
const EVENTS = 8;
/** The group's session timeout: heartbeats go every 3 s (at most). */
const SESSION_TIMEOUT_MS = 30_000;
/** When the consumers give up on a store call (a quarter of the session timeout is more). */
const STORE_TIMEOUT_MS = 7_000;
/** How soon after the batch goes on its failed heartbeat must be said. */
const SAID_WITHIN_MS = 2_000;
/**
 * How long after the broker's kill the first flush is let go: past a heartbeat's interval (none
 * succeeds after the kill), so that the batch's heartbeat after it is due and goes to the broker;
 * well short of the store's deadline for the flush, held since just before the kill. The group
 * does not crash meanwhile: its fetches wait for the batch.
 */
const HOLD_AFTER_KILL_MS = 3_200;

/** The embedded store, whose project commits wait, while `holding`, until `release()`. */
class HeldCommits extends MemoryStore {
  holding = false;
  /** Commits that were held. */
  held = 0;
  readonly #waiting: (() => void)[] = [];

  release(): void {
    for (const go of this.#waiting.splice(0)) go();
  }

  override async commitProject(commit: ProjectCommit): Promise<CommitResult> {
    if (this.holding) {
      this.held += 1;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    return await super.commitProject(commit);
  }
}

describeWithServices(['kafka', 'jdk', 'maven'], 'Kafka away while a batch is folded', () => {
  const id = randomUUID().slice(0, 8);
  let broker: Service | undefined;
  let producer: Producer | null = null;
  let consumers: ConsumersHandle | null = null;
  const logLines: string[] = [];
  const store = new HeldCommits({ nowMs: Date.now });

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
    // Nothing left held, whatever failed.
    store.holding = false;
    store.release();
    await producer?.disconnect().catch(() => undefined);
    await consumers?.stop();
    if (broker !== undefined) await down(broker);
  }, 90_000);

  test('a flush while the broker is away does not say Kafka is back; Kafka does', async () => {
    const own = broker;
    if (own === undefined) throw new Error('the broker did not start');
    const config = loadConfig({
      KAFKA_BROKERS: own.address,
      KAFKA_TOPIC_PREFIX: `away-flush-${id}.`,
      KAFKA_GROUP_ID: `away-flush-${id}`,
      TOPIC_PARTITIONS: '1',
      FLUSH_EVENTS: String(FLUSH_EVENTS),
      KAFKA_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
      STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
    });
    const logger = messagesLogger('info', 'kafka-away-flush', logLines);
    const metrics = new Registry();
    consumers = startConsumers(config, store, logger, () => Date.now() * 1000, { metrics });
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
    const kafka = new Kafka({ brokers: [own.address], logLevel: logLevel.NOTHING });
    producer = replayProducer(kafka);
    await producer.connect();
    store.holding = true;
    const topics = topicNames(config.kafkaTopicPrefix);
    await publishLines(lines, { producer, topics, keys: 'project' });
    await producer.disconnect();
    producer = null;

    // The batch's first flush is held: the batch waits for room while the broker is killed.
    await until('the first flush', 60_000, () => Promise.resolve(store.held === 1 ? true : null));
    // What was said from here on (a fresh broker may have been said away at the start).
    const said = logLines.length;
    const saidSince = () => logLines.slice(said);
    const killedAt = Date.now();
    signal(own, 'SIGKILL');
    await gone(own);
    await new Promise((resolve) => setTimeout(resolve, killedAt + HOLD_AFTER_KILL_MS - Date.now()));
    store.release();
    const releasedAt = Date.now();
    const away = `Kafka (${own.address}) or its topics is not reachable; retrying`;
    await until(
      'the outage said',
      60_000,
      () => Promise.resolve(saidSince().includes(away) ? true : null),
    );
    // By the batch's failed heartbeat, as Kafka's failure: not seconds later by the group's crash.
    expect(Date.now() - releasedAt).toBeLessThan(SAID_WITHIN_MS);
    expect(consumers.notReady(), 'the group has not crashed').toBeNull();
    // The batch's last flush lands while the broker is still away.
    store.holding = false;
    store.release();
    const stream = `${topics.edge}/0`;
    await until(
      'every event stored',
      30_000,
      async () => (await store.readOffset(resumeKey(stream))) === EVENTS ? true : null,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const back = (msg: string) =>
      msg.startsWith(`Kafka (${own.address}) or its topics is reachable`);
    expect(saidSince().filter(back), saidSince().join('\n')).toEqual([]);
    expect(saidSince().filter((msg) => msg === away), saidSince().join('\n')).toHaveLength(1);
    const exposition = await metrics.metrics();
    expect(batchFailures(exposition, 'kafka_away')).toBeGreaterThanOrEqual(1);
    expect(batchFailures(exposition, 'store_away') + batchFailures(exposition, 'store_timeout'))
      .toBe(0);

    // Kafka back: its answers say so.
    await up(own, () => undefined);
    await until(
      'Kafka said back',
      120_000,
      () => Promise.resolve(saidSince().some(back) ? true : null),
    );
  }, 300_000);
});
