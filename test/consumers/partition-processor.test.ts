/**
 * The partition processor without Kafka: batches of one partition's messages, pipelined flushes
 * into the in-memory store (the embedded default's store; the Redis path is covered by the
 * consumer suites on the real broker and Redis), failures injected into the store's commit.
 */
import { describe, expect, test } from 'vitest';
import {
  type BatchOutcome,
  type FlushReport,
  type InputMessage,
  PartitionProcessor,
  type PartitionProcessorOptions,
} from '../../consumers/partition-processor.ts';
import type { DeadLetter } from '../../consumers/dead-letter.ts';
import type { OverrunReport } from '../../consumers/retention-gap.ts';
import { Fold } from '../../src/rollup/fold.ts';
import {
  functionScope,
  invocationKey,
  projectPrefix,
  resumeKey,
  watermarkKey,
} from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import type { UnreadableState } from '../../src/rollup/unreadable.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { CommitResult, ProjectCommit, RollupStore } from '../../src/store/port.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { truncate } from '../../src/time/grain.ts';
import { expectStoreMatchesReference, validEvents } from '../rollup/fold-and-read.ts';
import { until } from '../support/poll.ts';

const MINUTE_US = 60_000_000;
const TOPIC = 'logs.function-edge';
const STREAM = `${TOPIC}/0`;

/**
 * A store whose project commits can be delayed or made to fail, around a real in-memory store.
 * A flush commits its projects at the same time, so a failure leaves the others applied: the
 * replay must skip what they already hold.
 */
class FaultyStore extends MemoryStore {
  failCommits = 0;
  failOffsetReads = 0;
  commitDelayMs = 0;
  commits = 0;
  watermarkReads = 0;

  override async commitProject(commit: ProjectCommit): Promise<CommitResult> {
    this.commits += 1;
    if (this.commitDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.commitDelayMs));
    }
    if (this.failCommits > 0) {
      this.failCommits -= 1;
      throw new Error('injected store failure');
    }
    return super.commitProject(commit);
  }

  override readWatermarks(keys: readonly string[], stream: string): Promise<(number | null)[]> {
    this.watermarkReads += 1;
    return super.readWatermarks(keys, stream);
  }

  override async readOffset(key: string): Promise<number | null> {
    if (this.failOffsetReads > 0) {
      this.failOffsetReads -= 1;
      throw new Error('injected store failure');
    }
    return await super.readOffset(key);
  }
}

function world(nowUs: number, flushEvents = 200) {
  const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
  const lines = [
    ...generateEvents({
      seed: 5,
      events: 3_000,
      nowUs,
      spanUs: 10 * MINUTE_US,
      outOfOrder: 0.05,
      invalid: 0.02,
      projects: 10,
    }),
  ].filter((line) => line.source === 'function-edge');
  const messages: InputMessage[] = lines.map(({ line }, offset) => ({
    offset: String(offset),
    key: null,
    value: Buffer.from(line),
  }));
  const letters: DeadLetter[] = [];
  const reports: FlushReport[] = [];
  const errors: unknown[] = [];
  const processor = processorOn(store, nowUs, flushEvents, { letters, reports, errors });
  return { store, lines, messages, letters, reports, errors, processor };
}

function processorOn(
  store: RollupStore,
  nowUs: number,
  flushEvents: number,
  sinks: { letters: DeadLetter[]; reports: FlushReport[]; errors: unknown[] },
  overrides: Partial<PartitionProcessorOptions> = {},
): PartitionProcessor {
  return new PartitionProcessor({
    topic: TOPIC,
    partition: 0,
    source: 'function-edge',
    store,
    nowUs: () => nowUs,
    maxFutureSkewUs: 5 * MINUTE_US,
    recentLogsCapacity: 10_000,
    flushEvents,
    publishDeadLetters: (batch) => {
      sinks.letters.push(...batch);
      return Promise.resolve();
    },
    earliestOffset: () => Promise.resolve(0),
    onFlush: (report) => sinks.reports.push(report),
    onFlushError: (error) => sinks.errors.push(error),
    ...overrides,
  });
}

/** A function-edge event of one timed invocation of `project`, as a producer writes it. */
function invocationLine(id: string, project: string, timestampUs: number): string {
  return JSON.stringify({
    id,
    timestamp: timestampUs,
    metadata: [{
      project_ref: project,
      function_id: 'f',
      execution_time_ms: 5,
      response: [{ status_code: 200 }],
    }],
  });
}

/** Feeds `messages` in batches of `size`, following seeks as kafkajs would. */
async function consume(
  processor: PartitionProcessor,
  messages: readonly InputMessage[],
  size: number,
  from = 0,
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  let position = from;
  while (position < messages.length) {
    const batch = messages.slice(position, position + size);
    const outcome = await processor.process(batch, () => true);
    outcomes.push(outcome);
    if (outcome.kind === 'ahead') throw new Error('the stored offset is beyond the partition');
    if (outcome.kind === 'seek') position = outcome.offset;
    else if (outcome.nextOffset === null) position = Number(batch[0]?.offset ?? position);
    else position = outcome.nextOffset;
  }
  return outcomes;
}

describe('PartitionProcessor', () => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;

  test('folds every batch once; once drained the rollups equal the reference', async () => {
    const { store, lines, messages, letters, reports, processor } = world(nowUs);
    await consume(processor, messages, 97);
    await processor.drain();
    expect(await store.readOffset(resumeKey(STREAM))).toBe(messages.length);
    const events = validEvents(lines, nowUs);
    expect(letters.length).toBe(messages.length - events.length);
    expect(letters.length).toBeGreaterThan(0);
    const flushed = reports.reduce((sum, report) => sum + report.events + report.rejected, 0);
    expect(flushed).toBe(messages.length);
    expect(await expectStoreMatchesReference(store, events, nowUs)).toBeGreaterThan(5);
  });

  test('answers before the store does, and never holds more than flushEvents unwritten', async () => {
    const { store, messages, reports, errors, processor } = world(nowUs, 150);
    store.commitDelayMs = 20;
    const first = await processor.process(messages.slice(0, 100), () => true);
    // The batch is folded and its flush under way, not landed.
    expect(first).toEqual({ kind: 'consumed', nextOffset: 100 });
    expect(processor.busy).toBe(true);
    expect(await store.readOffset(resumeKey(STREAM))).toBeNull();
    await consume(processor, messages, 100, 100);
    await processor.drain();
    expect(processor.busy).toBe(false);
    // One flush at a time: a batch that ends while one is under way leaves its folds for the
    // next (two at once would race for the same watermarks, and one would fail).
    expect(errors).toEqual([]);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(messages.length);
    for (const report of reports) expect(report.events + report.rejected).toBeLessThanOrEqual(150);
    // Folds that waited for a slow store went out together: fewer flushes than batches.
    expect(reports.length).toBeLessThan(Math.ceil(messages.length / 100));
  });

  test('an error while folding a message voids what was folded since, so nothing is lost', async () => {
    // The clock fails once, when the 250th event is folded: the message had already been taken
    // into the pending batch. Like the runner, the consumer fetches the batch again after an
    // error; what the failed batch left pending must not be written without the message.
    const { store, lines, messages } = world(nowUs, 120);
    // Slow commits: a flush is under way when the message fails, and lands during the pause.
    store.commitDelayMs = 5;
    let calls = 0;
    let thrown = 0;
    const clock = () => {
      calls += 1;
      if (calls === 250) {
        thrown += 1;
        throw new Error('injected clock failure');
      }
      return nowUs;
    };
    // Kafka timestamps, so that parsing never asks the clock: every call is the fold's, the
    // writer's or a flush's (its linger); wherever the failure lands, nothing may be lost.
    const stamped = messages.map((message) => ({ ...message, timestamp: String(nowUs / 1000) }));
    const sinks = { letters: [], reports: [], errors: [] };
    const processor = processorOn(store, nowUs, 120, sinks, { nowUs: clock });
    let position = 0;
    while (position < stamped.length) {
      const batch = stamped.slice(position, position + 97);
      let outcome: BatchOutcome;
      try {
        outcome = await processor.process(batch, () => true);
      } catch {
        // The runner's answer to an error: nothing resolved, the same batch fetched again.
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      if (outcome.kind === 'ahead') throw new Error('the stored offset is beyond the partition');
      if (outcome.kind === 'seek') position = outcome.offset;
      else position = outcome.nextOffset ?? position;
    }
    await processor.drain();
    expect(thrown).toBe(1);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(stamped.length);
    // Every project, so that the one whose message failed is among them.
    const events = validEvents(lines, nowUs);
    const queries = [...new Set(events.map((event) => event.project))].flatMap((project) =>
      ['1day', '1hr'].map((interval) =>
        ['functions.invocation-stats', `project=${project}&interval=${interval}`] as const
      )
    );
    expect(await expectStoreMatchesReference(store, events, nowUs, 5, queries)).toBeGreaterThan(5);
  });

  test('after a flush failed for one project, the replay skips what the others hold', async () => {
    const { store, lines, messages, errors, reports, processor } = world(nowUs);
    await consume(processor, messages.slice(0, 600), 100);
    await processor.drain();
    expect(await store.readOffset(resumeKey(STREAM))).toBe(600);
    store.failCommits = 1;
    expect(await processor.process(messages.slice(600, 700), () => true)).toEqual({
      kind: 'consumed',
      nextOffset: 700,
    });
    await processor.drain();
    expect(errors).toHaveLength(1);
    expect(processor.failed).toBe(true);
    // kafkajs goes on from 700; the processor refuses and asks for the stored offset.
    expect(await processor.process(messages.slice(700, 800), () => true)).toEqual({
      kind: 'seek',
      offset: 600,
    });
    expect(processor.failed).toBe(false);
    const skippedBefore = reports.reduce((sum, report) => sum + report.skipped, 0);
    await consume(processor, messages, 100, 600);
    await processor.drain();
    expect(await store.readOffset(resumeKey(STREAM))).toBe(messages.length);
    // The replay of 600..699 found the projects whose commits had landed, and said so.
    expect(skippedBefore).toBe(0);
    const skipped = reports.reduce((sum, report) => sum + report.skipped, 0);
    expect(skipped).toBeGreaterThan(0);
    expect(skipped).toBeLessThan(100);
    const events = validEvents(lines, nowUs);
    expect(await expectStoreMatchesReference(store, events, nowUs)).toBeGreaterThan(5);
  });

  test('resume() gives the stored offset of a new or failed partition, and null on track', async () => {
    const { store, messages, processor } = world(nowUs);
    // New: nothing stored yet, so from the earliest retained offset.
    expect(await processor.resume()).toBe(0);
    await consume(processor, messages.slice(0, 300), 100);
    await processor.drain();
    expect(await processor.resume()).toBeNull();
    store.failCommits = 1;
    await processor.process(messages.slice(300, 400), () => true);
    await processor.drain();
    expect(await processor.resume()).toBe(300);
    expect(processor.failed).toBe(false);
    // A batch fetched before the seek took effect is refused once more.
    expect(await processor.process(messages.slice(400, 450), () => true)).toEqual({
      kind: 'seek',
      offset: 300,
    });
  });

  test('a reopen() while a batch is under way is not lost', async () => {
    const { store, messages, processor } = world(nowUs, 50);
    await consume(processor, messages.slice(0, 300), 100);
    await processor.drain();
    store.commitDelayMs = 20;
    // The batch waits for the store (50 pending at most) when the rebalance happens.
    const batch = processor.process(messages.slice(300, 500), () => true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(processor.busy).toBe(true);
    processor.reopen();
    expect(await batch).toEqual({ kind: 'consumed', nextOffset: 500 });
    expect(processor.offset).toBeNull();
    // The assignment's resume() reads the stored offset again, after the batch's flushes landed.
    expect(await processor.resume()).toBe(500);
    expect(processor.offset).toBe(500);
  });

  test('skips what the store already covers, and seeks when a batch starts past it', async () => {
    const { store, lines, messages, reports, errors, processor } = world(nowUs);
    await consume(processor, messages.slice(0, 200), 200);
    await processor.drain();
    // A second processor (the partition moved after a rebalance) starts where the store says.
    const sinks = { letters: [], reports, errors };
    const next = processorOn(store, nowUs, 200, sinks);
    expect(await next.process(messages.slice(150, 250), () => true)).toEqual({
      kind: 'consumed',
      nextOffset: 250,
    });
    await next.drain();
    expect(await store.readOffset(resumeKey(STREAM))).toBe(250);
    // Messages 150..199 were folded once, not twice.
    const events = validEvents(lines.slice(0, 250), nowUs);
    expect(await expectStoreMatchesReference(store, events, nowUs)).toBeGreaterThan(5);
    const other = processorOn(store, nowUs, 200, sinks);
    expect(await other.process(messages.slice(400, 450), () => true)).toEqual({
      kind: 'seek',
      offset: 250,
    });
    expect(errors).toHaveLength(0);
  });

  test('a stored offset that could not be read leaves the partition failed, so it is asked again', async () => {
    // Issue 12, item 1: the read at assignment fails; a quiet partition gets no batch to retry
    // it, so only the runner's one-second check (which resumes failed partitions) can.
    const { store, messages, processor } = world(nowUs);
    await consume(processor, messages.slice(0, 300), 100);
    await processor.drain();
    processor.reopen();
    store.failOffsetReads = 1;
    await expect(processor.resume()).rejects.toThrow('injected store failure');
    expect(processor.failed).toBe(true);
    expect(processor.busy).toBe(false);
    expect(await processor.resume()).toBe(300);
    expect(processor.failed).toBe(false);
  });

  test('a flush holds at most flushBytes of events, however few they are', async () => {
    // Issue 12, item 5: 300 events of ~2 KiB each, flushEvents far above, flushBytes 64 KiB.
    const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
    const padding = 'x'.repeat(2_000);
    const messages: InputMessage[] = Array.from({ length: 300 }, (_, offset) => ({
      offset: String(offset),
      key: null,
      value: Buffer.from(JSON.stringify({
        id: `big-${offset}`,
        timestamp: nowUs - 60_000_000 + offset,
        event_message: padding,
        metadata: [{ project_ref: 'bytesboundedproject', function_id: 'f', execution_time_ms: 5 }],
      })),
    }));
    const size = messages[0]?.value?.length ?? 0;
    expect(size).toBeGreaterThan(2_000);
    const sinks = { letters: [] as DeadLetter[], reports: [] as FlushReport[], errors: [] };
    const processor = processorOn(store, nowUs, 1_000_000, sinks, { flushBytes: 64 * 1024 });
    await processor.process(messages, () => true);
    await processor.drain();
    expect(sinks.letters).toHaveLength(0);
    expect(sinks.reports.reduce((sum, report) => sum + report.events, 0)).toBe(300);
    for (const report of sinks.reports) {
      expect(report.events * size).toBeLessThan(64 * 1024 + size);
    }
    expect(sinks.reports.length).toBeGreaterThanOrEqual(Math.floor((300 * size) / (64 * 1024)));
  });

  test('an event is judged against its Kafka timestamp, so every replay decides alike', async () => {
    // Issue 12, item 7. The consumer's clock is a day after the events were produced: judged by
    // it, an event produced 10 minutes ahead of its own time would pass and one 89 days and 23
    // hours old when produced would be refused as older than 90 days.
    const producedMs = nowUs / 1000;
    const consumerNowUs = nowUs + 86_400_000_000;
    const event = (id: string, timestampUs: number) =>
      JSON.stringify({
        id,
        timestamp: timestampUs,
        metadata: [{ project_ref: 'judgedbykafkatimeab', function_id: 'f', execution_time_ms: 5 }],
      });
    const lines = [
      event('ahead-when-produced', nowUs + 10 * MINUTE_US),
      event('old-but-in-time', nowUs - (90 * 1440 - 60) * MINUTE_US),
      event('ordinary', nowUs - MINUTE_US),
    ];
    const messages: InputMessage[] = lines.map((line, offset) => ({
      offset: String(offset),
      timestamp: String(producedMs),
      key: null,
      value: Buffer.from(line),
    }));
    const store = new FaultyStore({ nowMs: () => consumerNowUs / 1000 });
    const sinks = { letters: [] as DeadLetter[], reports: [] as FlushReport[], errors: [] };
    const processor = processorOn(store, consumerNowUs, 100, sinks);
    await processor.process(messages, () => true);
    await processor.drain();
    expect(sinks.letters.map((letter) => JSON.parse(String(letter.value)).id)).toEqual([
      'ahead-when-produced',
    ]);
    expect(sinks.letters[0]?.headers['reason']).toMatch(/in the future/);
    expect(sinks.letters[0]?.headers['rejection-kind']).toBe('future');
    expect(sinks.reports.reduce((sum, report) => sum + report.events, 0)).toBe(2);
  });

  test('a message without a usable Kafka timestamp is judged by the clock', async () => {
    const line = invocationLine('no-kafka-time', 'clockjudgedprojectab', nowUs - MINUTE_US);
    const sinks = { letters: [] as DeadLetter[], reports: [] as FlushReport[], errors: [] };
    const processor = processorOn(
      new FaultyStore({ nowMs: () => nowUs / 1000 }),
      nowUs,
      100,
      sinks,
    );
    // Judged at 0 or at -1 ms, an event of today would be decades in the future.
    const messages = ['0', '-1', 'x', undefined].map((timestamp, offset): InputMessage => ({
      offset: String(offset),
      ...(timestamp === undefined ? {} : { timestamp }),
      key: null,
      value: Buffer.from(line),
    }));
    await processor.process(messages, () => true);
    await processor.drain();
    expect(sinks.letters).toEqual([]);
    expect(sinks.reports.reduce((sum, report) => sum + report.events, 0)).toBe(4);
  });

  test('a flush reports its oldest Kafka timestamp and its duration, and sends no empty batch of dead letters', async () => {
    const line = (id: string) => invocationLine(id, 'reportedprojectrefab', nowUs - MINUTE_US);
    const producedMs = [nowUs / 1000 - 500, nowUs / 1000 - 900, nowUs / 1000 - 700];
    const messages = producedMs.map((ms, offset): InputMessage => ({
      offset: String(offset),
      timestamp: String(ms),
      key: null,
      value: Buffer.from(line(`m${offset}`)),
    }));
    const batches: number[] = [];
    const sinks = { letters: [] as DeadLetter[], reports: [] as FlushReport[], errors: [] };
    const processor = processorOn(
      new FaultyStore({ nowMs: () => nowUs / 1000 }),
      nowUs,
      100,
      sinks,
      {
        publishDeadLetters: (batch) => {
          batches.push(batch.length);
          return Promise.resolve();
        },
      },
    );
    const started = performance.now();
    await processor.process(messages, () => true);
    await processor.drain();
    const elapsed = performance.now() - started;
    expect(batches).toEqual([]);
    expect(sinks.reports.map((report) => report.oldestProducedMs)).toEqual([nowUs / 1000 - 900]);
    for (const report of sinks.reports) {
      expect(report.durationMs).toBeGreaterThanOrEqual(0);
      expect(report.durationMs).toBeLessThanOrEqual(elapsed);
    }
  });
});

describe('PartitionProcessor: where a batch may start and stop', () => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;

  test('a stored offset beyond the partition end: ahead, nothing folded', async () => {
    const { store, messages, processor } = world(nowUs);
    await consume(processor, messages.slice(0, 300), 100);
    await processor.drain();
    const next = processorOn(store, nowUs, 200, { letters: [], reports: [], errors: [] });
    expect(await next.process(messages.slice(0, 50), () => true, 120)).toEqual({
      kind: 'ahead',
      stored: 300,
      end: 120,
    });
    expect(await next.process(messages.slice(300, 350), () => true, 300)).toEqual({
      kind: 'consumed',
      nextOffset: 350,
    });
  });

  test('after a seek, a batch that still starts later is a gap the log has (retention): taken', async () => {
    const { messages, processor } = world(nowUs);
    await consume(processor, messages.slice(0, 100), 100);
    expect(await processor.process(messages.slice(150, 200), () => true)).toEqual({
      kind: 'seek',
      offset: 100,
    });
    expect(await processor.process(messages.slice(160, 200), () => true)).toEqual({
      kind: 'consumed',
      nextOffset: 200,
    });
    await processor.drain();
    expect(processor.offset).toBe(200);
  });

  test('a gap below the log start is reported as lost to retention, once; above it, not', async () => {
    const { store, messages } = world(nowUs);
    const reports: OverrunReport[] = [];
    const sinks = { letters: [], reports: [], errors: [] };
    let logStart = 0;
    const processor = processorOn(store, nowUs, 1_000, sinks, {
      earliestOffset: () => Promise.resolve(logStart),
      onOverrun: (report) => reports.push(report),
    });
    await consume(processor, messages.slice(0, 100), 100);
    // Records with nothing to fold (a transaction's markers): a gap above the log start.
    expect(await processor.process(messages.slice(103, 120), () => true)).toEqual({
      kind: 'seek',
      offset: 100,
    });
    expect(await processor.process(messages.slice(103, 120), () => true)).toEqual({
      kind: 'consumed',
      nextOffset: 120,
    });
    expect(reports).toEqual([]);
    // Retention deleted 120 to 159 before they were folded.
    logStart = 160;
    await processor.process(messages.slice(160, 200), () => true);
    expect(await processor.process(messages.slice(160, 200), () => true)).toEqual({
      kind: 'consumed',
      nextOffset: 200,
    });
    await processor.drain();
    expect(processor.offset).toBe(200);
    expect(reports).toEqual([{
      stream: `${TOPIC}/0`,
      topic: TOPIC,
      partition: 0,
      stored: 120,
      logStart: 160,
      lost: 40,
    }]);
  });

  test('a loss reported is not reported again by the next processor of the partition', async () => {
    // The partition moves away and back before a flush past the gap lands: the runner drops
    // its processor and makes a new one over the same store.
    const { store, messages } = world(nowUs);
    const reports: OverrunReport[] = [];
    const sinks = { letters: [], reports: [], errors: [] };
    let logStart = 0;
    const overrides = {
      earliestOffset: () => Promise.resolve(logStart),
      onOverrun: (report: OverrunReport) => reports.push(report),
    };
    const first = processorOn(store, nowUs, 1_000, sinks, overrides);
    await consume(first, messages.slice(0, 100), 100);
    await first.drain();
    // Retention deletes 100 to 159 before they are folded.
    logStart = 160;
    expect(await first.process(messages.slice(160, 200), () => true)).toEqual({
      kind: 'seek',
      offset: 100,
    });
    store.failCommits = 1;
    await first.process(messages.slice(160, 200), () => true);
    await first.drain();
    expect(reports.map((report) => report.lost)).toEqual([60]);
    const second = processorOn(store, nowUs, 1_000, sinks, overrides);
    // As kafkajs fetches it: from 160 (the log start), whatever the stored offset.
    await second.process(messages.slice(160, 200), () => true);
    await second.process(messages.slice(160, 200), () => true);
    await second.drain();
    expect(second.offset).toBe(200);
    expect(reports.map((report) => report.lost)).toEqual([60]);
  });

  test('stops folding a batch once the consumer is no longer running', async () => {
    const { messages, processor } = world(nowUs);
    expect(await processor.process(messages.slice(0, 50), () => false)).toEqual({
      kind: 'consumed',
      nextOffset: 1,
    });
  });
});

describe('PartitionProcessor: a flush that fails while a batch waits for room', () => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;

  test('voids the rest of the batch, starts no flush after it, and is asked again', async () => {
    const { store, lines, messages, errors, processor } = world(nowUs, 50);
    store.commitDelayMs = 5;
    store.failCommits = 1;
    // 50 events fill a flush; the batch waits for room while the first flush fails.
    expect(await processor.process(messages.slice(0, 300), () => true)).toEqual({
      kind: 'consumed',
      nextOffset: null,
    });
    await processor.drain();
    expect(errors).toHaveLength(1);
    expect(processor.failed).toBe(true);
    store.commitDelayMs = 0;
    await consume(processor, messages, 100);
    await processor.drain();
    expect(errors).toHaveLength(1);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(messages.length);
    const events = validEvents(lines, nowUs);
    expect(await expectStoreMatchesReference(store, events, nowUs)).toBeGreaterThan(5);
  });
});

/** The valid events among function-edge `lines`, as the reference evaluator takes them. */
function functionEdgeEvents(lines: readonly string[], nowUs: number) {
  return validEvents(lines.map((line) => ({ source: 'function-edge', line })), nowUs);
}

/** Empty sinks for a processor's dead letters, flush reports and errors. */
function emptySinks() {
  return { letters: [] as DeadLetter[], reports: [] as FlushReport[], errors: [] as unknown[] };
}

/** `lines` as the messages of one partition, from offset `from` on. */
function messagesOf(lines: readonly string[], from = 0): InputMessage[] {
  return lines.map((line, i) => ({
    offset: String(from + i),
    key: null,
    value: Buffer.from(line),
  }));
}

describe('PartitionProcessor: what the store holds from before', () => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;

  test('a watermark the cache forgot during a batch is read again before the next event of it', async () => {
    const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
    // Events of a held project at even offsets, of a new one at odd offsets.
    const lines = Array.from(
      { length: 10 },
      (_, i) =>
        invocationLine(
          `e${i}`,
          i % 2 === 0 ? 'heldprojectref000000' : 'newprojectref0000000',
          nowUs - i,
        ),
    );
    // A crash left the held project's commit of offsets 0..9 landed, and neither the new
    // project's commit nor the stream's resume offset.
    const writer = new PartitionWriter({
      store,
      stream: STREAM,
      nowUs: () => nowUs,
      earliestOffset: () => Promise.resolve(0),
    });
    await writer.open();
    await writer.loadWatermarks(['heldprojectref000000']);
    const fold = new Fold(STREAM);
    const held = validEvents(lines.map((line) => ({ source: 'function-edge', line })), nowUs);
    held.forEach((event, offset) => {
      if (offset % 2 === 0) fold.add(event, offset, nowUs);
    });
    await writer.flush(fold.take(), 10);
    expect(await store.advanceOffset(resumeKey(STREAM), 10, 0)).toBe(true);
    const readsBefore = store.watermarkReads;

    // Each new event fills a flush, which forgets the held project (a cache of one project).
    const out = emptySinks();
    const processor = processorOn(store, nowUs, 1, out, { cacheLimit: 1 });
    await consume(processor, messagesOf(lines), 10);
    await processor.drain();
    expect(out.errors).toEqual([]);
    expect(store.watermarkReads - readsBefore).toBeGreaterThan(1);
    expect(out.reports.reduce((sum, report) => sum + report.skipped, 0)).toBe(5);
    await expectStoreMatchesReference(store, held, nowUs);
  });

  test('a stored state it cannot read is reported to onUnreadable', async () => {
    const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
    const project = 'unreadableprojref000';
    const key = invocationKey(
      projectPrefix(project),
      functionScope(null),
      'minute',
      truncate(nowUs - 1, 'minute'),
    );
    const expireAtMs = nowUs / 1000 + 60_000;
    await store.commitProject({
      stream: STREAM,
      watermark: { key: watermarkKey(project), expected: null, next: 0, expireAtMs },
      parts: [{ key, value: '{"n":"x"}', expireAtMs }],
      sortedSets: [],
    });
    const reported: UnreadableState[] = [];
    const processor = processorOn(store, nowUs, 100, emptySinks(), {
      onUnreadable: (state) => reported.push(state),
    });
    await consume(processor, messagesOf([invocationLine('u', project, nowUs - 1)]), 10);
    await processor.drain();
    expect(reported.map((state) => state.key)).toEqual([key]);
  });

  test('verify() that finds the store rolled back makes the partition resume where it must', async () => {
    const { store, messages, processor } = world(nowUs);
    await consume(processor, messages.slice(0, 300), 100);
    await processor.drain();
    expect(await processor.verify()).toEqual({ consistent: true });
    expect(await processor.resume()).toBeNull();
    expect(await store.advanceOffset(resumeKey(STREAM), 300, 100)).toBe(true);
    expect(await processor.verify()).toMatchObject({ consistent: false });
    expect(await processor.resume()).toBe(100);
  });
});

describe('PartitionProcessor: a message parsed, folded and dropped before the next', () => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const eventsOf = (lines: readonly string[]) => functionEdgeEvents(lines, nowUs);

  test('projects new in the middle of a batch are read in one round, those known not at all', async () => {
    const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
    const out = emptySinks();
    const processor = processorOn(store, nowUs, 1_000, out);
    const first = Array.from(
      { length: 4 },
      (_, i) => invocationLine(`a${i}`, 'knownprojectref00000', nowUs - i),
    );
    await consume(processor, messagesOf(first), 10);
    await processor.drain();
    const readsAfterFirst = store.watermarkReads;

    // Known, known, new, known, other new, new: the two new projects come from one read.
    const projects = [
      'knownprojectref00000',
      'knownprojectref00000',
      'newprojectref1000000',
      'knownprojectref00000',
      'newprojectref2000000',
      'newprojectref1000000',
    ];
    const second = projects.map((project, i) => invocationLine(`b${i}`, project, nowUs - 10 - i));
    await consume(processor, messagesOf(second, first.length), 10);
    await processor.drain();
    expect(store.watermarkReads - readsAfterFirst).toBe(1);

    // A batch of known projects only reads nothing.
    const third = projects.map((project, i) => invocationLine(`c${i}`, project, nowUs - 20 - i));
    await consume(processor, messagesOf(third, first.length + second.length), 10);
    await processor.drain();
    expect(store.watermarkReads - readsAfterFirst).toBe(1);
    expect(out.errors).toEqual([]);
    await expectStoreMatchesReference(store, eventsOf([...first, ...second, ...third]), nowUs);
  });

  test('a batch goes whole into one flush, though the one before lands while it folds', async () => {
    const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
    const out = emptySinks();
    const processor = processorOn(store, nowUs, 1_000, out);
    const lines = Array.from(
      { length: 200 },
      (_, i) => invocationLine(`e${i}`, `project${i % 4}ref0000000000`, nowUs - i),
    );
    await processor.process(messagesOf(lines.slice(0, 100)), () => true);
    // The first batch's flush is under way (its writes resolve as the second batch folds).
    await processor.process(messagesOf(lines.slice(100), 100), () => true);
    await processor.drain();
    expect(out.errors).toEqual([]);
    expect(out.reports.map((report) => report.events)).toEqual([100, 100]);
  });

  test('a project folded while an earlier flush is under way is not forgotten when it lands', async () => {
    const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
    const out = emptySinks();
    // A cache of one project: a landing flush forgets what no fold under way has used.
    const processor = processorOn(store, nowUs, 1_000, out, { cacheLimit: 1 });
    const lines = ['cprojectref000000000', 'aprojectref000000000', 'cprojectref000000000']
      .map((project, i) => invocationLine(`e${i}`, project, nowUs - i));
    await processor.process(messagesOf(lines.slice(0, 1)), () => true);
    await processor.drain();
    // A's flush is still under way while C, known from before it, is folded again.
    store.commitDelayMs = 30;
    await processor.process(messagesOf(lines.slice(1, 2), 1), () => true);
    await processor.process(messagesOf(lines.slice(2), 2), () => true);
    await processor.drain();
    expect(out.errors).toEqual([]);
    await expectStoreMatchesReference(store, eventsOf(lines), nowUs);
  });
});

describe('PartitionProcessor: flushes that linger (flushLingerMs)', () => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  // Longer than any test's timeout: a linger that nothing cut would fail the test.
  const LINGER_MS = 600_000;
  const lines = Array.from(
    { length: 300 },
    (_, i) => invocationLine(`e${i}`, `project${i % 4}ref0000000000`, nowUs - i),
  );

  /** A processor whose flushes linger `flushLingerMs`, on a clock the test moves. */
  function lingering(flushLingerMs: number, flushEvents = 1_000) {
    const store = new FaultyStore({ nowMs: () => nowUs / 1000 });
    const out = emptySinks();
    const clock = { us: nowUs };
    const processor = processorOn(store, nowUs, flushEvents, out, {
      flushLingerMs,
      nowUs: () => clock.us,
    });
    /** Resolves once the stream's stored offset is `offset` (at least, when `atLeast`). */
    const stored = (what: string, offset: number, atLeast = false) =>
      until(what, 10_000, async () => {
        const at = (await store.readOffset(resumeKey(STREAM))) ?? 0;
        return at === offset || (atLeast && at > offset) ? true : null;
      });
    return { store, out, clock, processor, stored };
  }

  test('a flush within the linger of the last one gathers the batches folded meanwhile', async () => {
    const { store, out, clock, processor, stored } = lingering(1_000);
    await processor.process(messagesOf(lines.slice(0, 100)), () => true);
    await processor.drain();
    // 400 ms after the first flush: the next waits out the other 600 ms, taking both batches.
    clock.us += 400_000;
    await processor.process(messagesOf(lines.slice(100, 200), 100), () => true);
    await processor.process(messagesOf(lines.slice(200), 200), () => true);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(100);
    await stored('the lingering flush', 300);
    expect(out.reports.map((report) => report.events)).toEqual([100, 200]);
    expect(out.errors).toEqual([]);
    await expectStoreMatchesReference(store, functionEdgeEvents(lines, nowUs), nowUs);
  });

  test('a clock set back holds a flush no longer than the linger', async () => {
    const { out, clock, processor, stored } = lingering(300);
    await processor.process(messagesOf(lines.slice(0, 100)), () => true);
    await processor.drain();
    // A minute back (within the events' allowed skew): without the bound, a wait of 60.3 s.
    clock.us -= 60_000_000;
    await processor.process(messagesOf(lines.slice(100), 100), () => true);
    await stored('the flush after the clock moved back', 300);
    expect(out.letters).toEqual([]);
    expect(out.reports.map((report) => report.events)).toEqual([100, 200]);
    expect(out.errors).toEqual([]);
  });

  test('drain cuts the linger short: the folded work is written at once', async () => {
    const { store, processor } = lingering(LINGER_MS);
    await processor.process(messagesOf(lines.slice(0, 100)), () => true);
    await processor.drain();
    await processor.process(messagesOf(lines.slice(100), 100), () => true);
    expect(processor.busy).toBe(true);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(100);
    await processor.drain();
    expect(await store.readOffset(resumeKey(STREAM))).toBe(300);
    await expectStoreMatchesReference(store, functionEdgeEvents(lines, nowUs), nowUs);
  });

  test('a partition that fills while its flush lingers does not wait for it', async () => {
    const { store, out, processor, stored } = lingering(LINGER_MS, 120);
    await processor.process(messagesOf(lines.slice(0, 10)), () => true);
    await processor.drain();
    // The next flush lingers with these 50 events...
    await processor.process(messagesOf(lines.slice(10, 60), 10), () => true);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(10);
    // ...until this batch fills the partition past its bound of 120: the flush takes what is
    // pending and goes out, and folding goes on while it is written (the store is slow now).
    store.commitDelayMs = 2_000;
    await processor.process(messagesOf(lines.slice(60, 150), 60), () => true);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(10);
    await stored('the flushes of a full partition', 130, true);
    for (const report of out.reports) expect(report.events).toBeLessThanOrEqual(120);
    expect(out.errors).toEqual([]);
  });

  test.each([
    ['its linger', 0],
    ['a write under way', 300],
  ])('a consumer that stops during %s does not wait for the linger', async (_, delayMs) => {
    const { store, out, clock, processor } = lingering(LINGER_MS);
    await processor.process(messagesOf(lines.slice(0, 10)), () => true);
    await processor.drain();
    // A flush lingers with these events; or, a linger later, they go out at once, to a slow
    // store, and the flush after them would linger...
    if (delayMs > 0) clock.us += LINGER_MS * 1000;
    store.commitDelayMs = delayMs;
    await processor.process(messagesOf(lines.slice(10, 100), 10), () => true);
    // ...when the consumer stops in the middle of the next batch.
    let running = 25;
    const outcome = await processor.process(
      messagesOf(lines.slice(100), 100),
      () => --running > 0,
    );
    expect(outcome.kind).toBe('consumed');
    const through = outcome.kind === 'consumed' ? outcome.nextOffset : null;
    expect(through).toBeGreaterThan(100);
    await until(
      'the flush of a stopping consumer',
      10_000,
      () => Promise.resolve(processor.busy ? null : true),
    );
    expect(await store.readOffset(resumeKey(STREAM))).toBe(through);
    expect(out.errors).toEqual([]);
  });
});
