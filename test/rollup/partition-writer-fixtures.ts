/**
 * What the partition writer's tests share: a fixed clock, events of one function invocation,
 * a writer of a Kafka-like stream on the embedded store, and one flush of one event.
 *
 * @module
 */
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { functionScope, invocationKey, projectPrefix } from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import type { UnreadableState } from '../../src/rollup/unreadable.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { truncate } from '../../src/time/grain.ts';

/** 2026-11-21T10:15:30.123456Z. */
export const NOW_US = 1_795_256_130_123_456;
export const PROJECT = 'writerprojectref0000';

/** A function invocation of `project` one second before {@link NOW_US}. */
export function invocationEvent(id: string, executionTimeMs: number, project = PROJECT): LogEvent {
  const result = parse(
    JSON.stringify({
      id,
      timestamp: NOW_US - 1_000_000,
      metadata: [{
        project_ref: project,
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

/** The minute key of {@link PROJECT}'s invocations of all functions at {@link NOW_US}. */
export function minuteKey(): string {
  return invocationKey(
    projectPrefix(PROJECT),
    functionScope(null),
    'minute',
    truncate(NOW_US - 1_000_000, 'minute'),
  );
}

/** Loads the watermark of `event`'s project, folds the event at `offset` and flushes it. */
export async function flushOne(
  writer: PartitionWriter,
  event: LogEvent,
  offset: number,
  nowUs = NOW_US,
): Promise<void> {
  await writer.loadWatermarks([event.project]);
  const fold = new Fold(writer.stream);
  fold.add(event, offset, nowUs);
  await writer.flush(fold.take(), offset + 1);
}

/** A writer of a Kafka-like stream (it keeps a resume offset; the earliest offset is 0). */
export function partitionWriter(
  store: MemoryStore,
  stream: string,
  onUnreadable?: (state: UnreadableState) => void,
): PartitionWriter {
  return new PartitionWriter({
    store,
    stream,
    nowUs: () => NOW_US,
    earliestOffset: () => Promise.resolve(0),
    ...(onUnreadable === undefined ? {} : { onUnreadable }),
  });
}

/** The embedded store at {@link NOW_US}. */
export function memoryStore(): MemoryStore {
  return new MemoryStore({ nowMs: () => Math.floor(NOW_US / 1000) });
}
