/**
 * Second buckets are read from each minute's hash of seconds: 6 keys for a `5min` series. The
 * keys of the layout before it (one per second) are read only for a minute that shows some of
 * its seconds there (the mixed-version case is in the fold-and-read suite, on every store).
 */
import { describe, expect, test } from 'vitest';
import { answerEndpoint } from '../../../src/endpoints/registry.ts';
import type { ReadContext } from '../../../src/endpoints/read/context.ts';
import { MemoryStore } from '../../../src/store/memory.ts';
import type { HashRead, SlottedPart } from '../../../src/store/port.ts';
import { foldThroughWriters, generatedStream, queriesFor } from '../../rollup/fold-and-read.ts';

/** The memory store, counting the keys each read asks for. */
class CountingStore extends MemoryStore {
  readonly bucketKeys: string[] = [];
  readonly slotKeys: string[] = [];

  override readBuckets(keys: readonly string[]): Promise<Uint8Array[][]> {
    this.bucketKeys.push(...keys);
    return super.readBuckets(keys);
  }

  override readSlots(reads: readonly HashRead[]): Promise<SlottedPart[][]> {
    this.slotKeys.push(...reads.map(({ key }) => key));
    return super.readSlots(reads);
  }
}

describe('second buckets', () => {
  test('a 5min series reads its minutes hashes of seconds and minute buckets, nothing more', async () => {
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 2_000);
    const store = new CountingStore({ nowMs: () => nowUs / 1000 });
    await foldThroughWriters(store, stream.events, nowUs, 4, 'random');
    const context: ReadContext = { store, nowUs, maxFutureSkewUs: 5 * 60_000_000 };
    const queries = queriesFor(stream.events, nowUs).filter(([, query]) =>
      query.includes('interval=5min') || query.includes('interval=minutely')
    );
    expect(queries.length).toBeGreaterThan(10);
    let seriesRead = 0;
    for (const [name, query] of queries) {
      store.bucketKeys.length = 0;
      store.slotKeys.length = 0;
      const answer = await answerEndpoint(name, new URLSearchParams(query), context);
      expect(answer.ok, query).toBe(true);
      if (name !== 'functions.invocation-stats') continue;
      seriesRead += 1;
      // 301 seconds span 6 minutes: each minute's hash of seconds and its minute bucket.
      expect(store.slotKeys, query).toHaveLength(12);
      expect(store.slotKeys.filter((key) => /:S:\d+$/.test(key)), query).toHaveLength(6);
      // No minute shows seconds kept one key each: no such key is read.
      expect(store.bucketKeys, query).toEqual([]);
    }
    expect(seriesRead).toBeGreaterThan(5);
  });
});
