/**
 * When the partition writer adds a flush's entries to the projects' ring buffers (`logs.all`):
 * a Kafka stream writes them outside the commit script (an entry names its stream and offset, so
 * the replay writes the very same one), but only once the flush knows the store still holds what
 * it wrote, and before any commit, so that a failure commits nothing and the replay writes them
 * again; a stream that is never replayed (HTTP ingest) writes them inside each project's commit.
 */
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { recentLogsKey, watermarkKey } from '../../src/rollup/keys.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { flushOne, memoryStore, NOW_US, PROJECT } from './partition-writer-fixtures.ts';

/** An edge event of {@link PROJECT} one second before {@link NOW_US}. */
function edgeEvent(id: string): LogEvent {
  const result = parse(
    JSON.stringify({
      id,
      timestamp: NOW_US - 1_000_000,
      project: PROJECT,
      event_message: `GET ${id}`,
      metadata: [{ request: [{ host: `${PROJECT}.supabase.co`, path: '/rest/v1/t' }] }],
    }),
    'edge',
    { nowUs: NOW_US },
  );
  if (!result.ok) throw new Error(result.rejection.reason);
  return result.event;
}

/** The ids of the entries in {@link PROJECT}'s ring buffer. */
async function entryIds(store: RollupStore): Promise<string[]> {
  const members = await store.membersSince(recentLogsKey(PROJECT), 0);
  return members.map(({ member }) => member.slice(0, member.indexOf('\u0000'))).sort();
}

describe('ring-buffer entries', () => {
  test('of a flush the store refuses (it lost what the stream wrote) are not written', async () => {
    const store = memoryStore();
    let lost = false;
    // A store that lost its data since the last flush answers that no resume offset is stored.
    const losing: RollupStore = {
      ...bound(store),
      readOffset: (key) => (lost ? Promise.resolve(null) : store.readOffset(key)),
    };
    const writer = partitionWriterOver(losing, 'logs.edge/0');
    await writer.open();
    await flushOne(writer, edgeEvent('kept'), 0);
    lost = true;
    // What the writer folded next was judged against state the store no longer holds (its
    // project's bounds, say): the rebuild from the earliest offset may refuse it.
    await expect(flushOne(writer, edgeEvent('judged-on-lost-state'), 1)).rejects.toThrow(
      /the resume offset is gone/,
    );
    expect(await entryIds(store)).toEqual(['kept']);
  });

  test('of a flush whose ring-buffer write fails: nothing is committed, the replay writes it', async () => {
    const store = memoryStore();
    let failRingWrite = true;
    const flaky: RollupStore = {
      ...bound(store),
      updateSortedSet: (write) =>
        write.key === recentLogsKey(PROJECT) && failRingWrite
          ? Promise.reject(new Error('connection reset'))
          : store.updateSortedSet(write),
    };
    const writer = partitionWriterOver(flaky, 'logs.edge/1');
    await writer.open();
    await expect(flushOne(writer, edgeEvent('a'), 0)).rejects.toThrow('connection reset');
    expect(await store.readWatermarks([watermarkKey(PROJECT)], 'logs.edge/1')).toEqual([null]);
    failRingWrite = false;
    expect(await writer.open()).toBe(0);
    await flushOne(writer, edgeEvent('a'), 0);
    expect(await entryIds(store)).toEqual(['a']);
    expect(await store.readWatermarks([watermarkKey(PROJECT)], 'logs.edge/1')).toEqual([1]);
  });

  test('of an HTTP ingest call whose commit fails are not written (no replay would mend it)', async () => {
    const store = memoryStore();
    let failCommits = true;
    const failing: RollupStore = {
      ...bound(store),
      commitProject: (commit) =>
        failCommits ? Promise.reject(new Error('connection reset')) : store.commitProject(commit),
    };
    const ingest = new DirectIngest({ store: failing, nowUs: () => NOW_US });
    await expect(ingest.fold([edgeEvent('a')])).rejects.toThrow('connection reset');
    expect(await entryIds(store)).toEqual([]);
    // The caller was told the call failed and sends it again: one entry, as one count.
    failCommits = false;
    await ingest.fold([edgeEvent('a')]);
    expect(await entryIds(store)).toEqual(['a']);
  });
});

/** A writer of a Kafka-like stream (it keeps a resume offset) over `store`. */
function partitionWriterOver(store: RollupStore, stream: string): PartitionWriter {
  return new PartitionWriter({
    store,
    stream,
    nowUs: () => NOW_US,
    earliestOffset: () => Promise.resolve(0),
  });
}

/** Every method of `store`, bound to it, so a test can replace some. */
function bound(store: RollupStore): RollupStore {
  return {
    commitProject: (commit) => store.commitProject(commit),
    readWatermarks: (keys, stream) => store.readWatermarks(keys, stream),
    readReaches: (keys, stream) => store.readReaches(keys, stream),
    readParts: (keys, stream) => store.readParts(keys, stream),
    readBuckets: (keys) => store.readBuckets(keys),
    readSlots: (keys) => store.readSlots(keys),
    readOffset: (key) => store.readOffset(key),
    advanceOffset: (key, expected, next) => store.advanceOffset(key, expected, next),
    updateSortedSet: (write) => store.updateSortedSet(write),
    rangeByScore: (key, range) => store.rangeByScore(key, range),
    membersSince: (key, minScore) => store.membersSince(key, minScore),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
