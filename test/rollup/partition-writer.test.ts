/**
 * The partition writer on the embedded store: merging into stored states, and what it does with
 * a stored state it cannot read (issue 18: one key must never stop a partition).
 */
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import {
  functionScope,
  invocationKey,
  projectPrefix,
  quarantineKey,
} from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import type { UnreadableState } from '../../src/rollup/unreadable.ts';
import { logPosition } from '../../src/rollup/recent-logs.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { truncate } from '../../src/time/grain.ts';

const NOW_US = 1_795_256_130_123_456;
const PROJECT = 'writerprojectref0000';

function invocationEvent(id: string, executionTimeMs: number): LogEvent {
  const result = parse(
    JSON.stringify({
      id,
      timestamp: NOW_US - 1_000_000,
      metadata: [{
        project_ref: PROJECT,
        function_id: 'f1',
        execution_time_ms: executionTimeMs,
        response: [{ status_code: 200 }],
      }],
    }),
    'function-edge',
    { nowUs: NOW_US },
  );
  if (!result.ok) throw new Error(result.rejection.reason);
  return result.event;
}

function minuteKey(): string {
  return invocationKey(
    projectPrefix(PROJECT),
    functionScope(null),
    'minute',
    truncate(NOW_US - 1_000_000, 'minute'),
  );
}

async function flushOne(writer: PartitionWriter, event: LogEvent, offset: number): Promise<void> {
  const fold = new Fold();
  fold.add(event, logPosition(writer.stream, offset), NOW_US);
  await writer.flush(fold.take(), offset + 1);
}

describe('partition writer', () => {
  test('a second flush merges into the state the first one stored', async () => {
    const store = new MemoryStore({ nowMs: () => Math.floor(NOW_US / 1000) });
    const writer = new PartitionWriter({ store, stream: 's/0', nowUs: () => NOW_US });
    await writer.open();
    await flushOne(writer, invocationEvent('a', 10), 0);
    await flushOne(writer, invocationEvent('b', 30), 1);
    const [text] = await store.getValues([minuteKey()]);
    expect(invocationStats.finalize(invocationStats.deserialize(text ?? ''))).toMatchObject({
      count: 2,
      min_execution_time: 10,
      max_execution_time: 30,
      avg_execution_time: 20,
    });
    expect(writer.offset).toBe(2);
  });

  test('a stored state it cannot read is moved aside, reported, and the flush goes on', async () => {
    const store = new MemoryStore({ nowMs: () => Math.floor(NOW_US / 1000) });
    const corrupt = '{"n":2,"e":0,"s":[0,0,0,0,0],"t":2,"sum":null,"min":1e308,"max":1e308}';
    await store.commit({
      offset: { key: 'elsewhere', stream: 'seed', expected: null, next: 1 },
      states: [{
        key: minuteKey(),
        value: corrupt,
        expireAtMs: Math.floor(NOW_US / 1000) + 60_000,
      }],
      sortedSets: [],
    });
    const reported: UnreadableState[] = [];
    const writer = new PartitionWriter({
      store,
      stream: 's/0',
      nowUs: () => NOW_US,
      onUnreadable: (state) => reported.push(state),
    });
    await writer.open();
    await flushOne(writer, invocationEvent('a', 10), 0);

    expect(writer.offset).toBe(1);
    const [text, aside] = await store.getValues([minuteKey(), quarantineKey(minuteKey())]);
    expect(invocationStats.finalize(invocationStats.deserialize(text ?? ''))).toMatchObject({
      count: 1,
      max_execution_time: 10,
    });
    expect(aside).toBe(corrupt);
    expect(reported).toHaveLength(1);
    expect(reported[0]?.key).toBe(minuteKey());
    // What is wrong, never the value itself: stored entries may hold personal data.
    expect(reported[0]).toEqual({
      key: minuteKey(),
      reason: 'invocation stats state is malformed',
      length: corrupt.length,
    });

    // The next flush merges into the fresh state as usual.
    await flushOne(writer, invocationEvent('b', 30), 1);
    const [merged] = await store.getValues([minuteKey()]);
    expect(invocationStats.finalize(invocationStats.deserialize(merged ?? '')).count).toBe(2);
  });
});
