/**
 * Issue 12, item 6: producers control cardinality. A function id and a request host are free
 * text, and each is a set of bucket keys at every grain; one project must not create keys
 * without end. Each stream folds at most PROJECT_DAY_BOUNDS distinct function ids and hosts per
 * project and UTC day; an event beyond is a dead letter of kind `cardinality`; every replay
 * decides the same (the partition processor with the embedded in-memory store here; the same
 * through Kafka and Redis in project-bounds-services.test.ts).
 */
import { describe, expect, test } from 'vitest';
import type { DeadLetter } from '../../consumers/dead-letter.ts';
import { type InputMessage, PartitionProcessor } from '../../consumers/partition-processor.ts';
import { functionScope, invocationKey, projectPrefix } from '../../src/rollup/keys.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { CommitResult, ProjectCommit } from '../../src/store/port.ts';
import { truncate } from '../../src/time/grain.ts';
import { BOUNDED_PROJECT as PROJECT, boundsStream } from './bounds-stream.ts';

const TOPIC = 'logs.function-edge';
const DAY_US = 86_400_000_000;

/** A store whose `failAt`-th project commit fails once. */
class FailingOnce extends MemoryStore {
  commits = 0;
  failAt = -1;

  override async commitProject(commit: ProjectCommit): Promise<CommitResult> {
    this.commits += 1;
    if (this.commits === this.failAt) throw new Error('injected store failure');
    return await super.commitProject(commit);
  }
}

async function run(store: MemoryStore, lines: readonly string[], nowUs: number, batch: number) {
  const letters: DeadLetter[] = [];
  const processor = new PartitionProcessor({
    topic: TOPIC,
    partition: 0,
    source: 'function-edge',
    store,
    nowUs: () => nowUs,
    maxFutureSkewUs: 300_000_000,
    recentLogsCapacity: 100,
    flushEvents: 4,
    publishDeadLetters: (sent) => {
      letters.push(...sent);
      return Promise.resolve();
    },
    earliestOffset: () => Promise.resolve(0),
  });
  const messages: InputMessage[] = lines.map((line, offset) => ({
    offset: String(offset),
    key: Buffer.from(PROJECT),
    value: Buffer.from(line),
  }));
  let position = 0;
  while (position < messages.length) {
    const outcome = await processor.process(messages.slice(position, position + batch), () => true);
    if (outcome.kind === 'seek') position = outcome.offset;
    else if (outcome.kind === 'ahead') throw new Error('ahead');
    else position = outcome.nextOffset ?? position;
    await processor.drain();
  }
  await processor.drain();
  const offsets = [...new Set(letters.map((letter) => Number(letter.headers['source-offset'])))]
    .sort((a, b) => a - b);
  return { letters, offsets };
}

describe('per-project key bounds in the partition processor', () => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const { lines, refused } = boundsStream(nowUs);
  const dayKey = (functionId: string, atUs: number) =>
    invocationKey(projectPrefix(PROJECT), functionScope(functionId), 'day', truncate(atUs, 'day'));

  test('distinct function ids beyond the bound are dead letters; the rest is folded', async () => {
    const store = new MemoryStore({ nowMs: () => nowUs / 1000 });
    const { letters, offsets } = await run(store, lines, nowUs, 7);
    expect(offsets).toEqual(refused);
    for (const letter of letters) {
      expect(letter.headers['rejection-kind']).toBe('cardinality');
      expect(letter.headers['reason']).toMatch(
        new RegExp(`^project ${PROJECT} already has \\d+ distinct function_ids on `),
      );
    }
    // Exactly the bound of function scopes today; none of the refused events' ids; yesterday's.
    const kept = await store.readBuckets([
      dayKey('fn-0', nowUs),
      dayKey('fn-959', nowUs),
      dayKey('fn-1000', nowUs),
      dayKey('fn-one-more', nowUs),
      dayKey('fn-63', nowUs - DAY_US),
    ]);
    expect(kept.map((parts) => parts.length > 0)).toEqual([true, true, false, false, true]);
  });

  test('a replay after a failed flush and a replay into an empty store decide the same', async () => {
    const failing = new FailingOnce({ nowMs: () => nowUs / 1000 });
    failing.failAt = 9;
    const afterFailure = await run(failing, lines, nowUs, 5);
    expect(failing.commits).toBeGreaterThan(9);
    expect(afterFailure.offsets).toEqual(refused);
    const fresh = await run(new MemoryStore({ nowMs: () => nowUs / 1000 }), lines, nowUs, 3);
    expect(fresh.offsets).toEqual(refused);
  });
});
