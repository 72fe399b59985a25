/**
 * The embedded store's estimate of what it holds follows every write, overwrite, trim and expiry
 * (it comes back to nothing once everything expired); its budget makes room by dropping the oldest
 * ring-buffer entries of the project holding the most, and refuses room only when what is left
 * beyond ring buffers leaves none, then forgetting nothing.
 */
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { HOSTS_KEY, recentLogsKey } from '../../src/rollup/keys.ts';
import { StoreFullError } from '../../src/store/memory-budget.ts';
import { MemoryStore } from '../../src/store/memory.ts';

const NOW_US = 1_795_256_130_123_456;
const YEAR_MS = 366 * 86_400_000;

function edge(id: string, project: string, message = 'GET | 200', atUs = NOW_US): LogEvent {
  const text = JSON.stringify({
    id,
    timestamp: atUs - 1_000_000,
    project,
    event_message: message,
    metadata: [{
      request: [{ method: 'GET', host: `${project}.supabase.co`, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  });
  const parsed = parse(text, 'edge', { nowUs: NOW_US });
  if (!parsed.ok) throw new Error(parsed.rejection.reason);
  return parsed.event;
}

describe('MemoryStore budget', () => {
  test('the estimate grows with what is folded and comes back to nothing once it all expired', async () => {
    let nowMs = Math.floor(NOW_US / 1000);
    const store = new MemoryStore({ nowMs: () => nowMs, maxBytes: 1 });
    const ingest = new DirectIngest({ store, nowUs: () => nowMs * 1000 });
    await ingest.fold([edge('a', 'pone'), edge('b', 'pone'), edge('c', 'ptwo')]);
    const folded = store.heldBytes;
    expect(folded).toBeGreaterThan(0);
    await ingest.fold([edge('d', 'pone')]);
    expect(store.heldBytes).toBeGreaterThan(folded);
    expect(() => store.ensureRoom(1)).toThrow(StoreFullError);
    // Enough keys that the sweeps of the commits stop part way through the maps.
    for (let call = 0; call < 3; call++) {
      await ingest.fold(
        Array.from({ length: 20 }, (_, i) => edge(`m${call}-${i}`, `p${call}x${i}`)),
      );
    }
    // A year later every key with an expiry is gone (a refusal first forgets them, hashes and
    // sorted sets alike): what is left is the host registry, trimmed only by later writes.
    nowMs += YEAR_MS;
    expect(() => store.ensureRoom(1)).toThrow(StoreFullError);
    const registry = new MemoryStore({ nowMs: () => nowMs });
    await registry.updateSortedSet({
      key: HOSTS_KEY,
      members: await store.membersSince(HOSTS_KEY, 0),
      mode: 'add',
      keepHighest: null,
      dropBelow: null,
      expireAtMs: null,
    });
    expect(registry.heldBytes).toBeGreaterThan(0);
    expect(store.heldBytes).toBe(registry.heldBytes);
  });

  test('room is refused past the budget, saying how much is held, and nothing is forgotten', async () => {
    const nowMs = Math.floor(NOW_US / 1000);
    const store = new MemoryStore({ nowMs: () => nowMs, maxBytes: 1_000_000 });
    await new DirectIngest({ store, nowUs: () => NOW_US }).fold([edge('a', 'pone')]);
    const held = store.heldBytes;
    store.ensureRoom(1_000_000 - held);
    // More than the budget: not even dropping the ring buffer's entry makes room.
    expect(() => store.ensureRoom(1_000_000)).toThrow(
      `the embedded store holds an estimated ${held} bytes of its budget of 1000000 bytes ` +
        '(MEMORY_STORE_MAX_BYTES), with no room for the 1000000 bytes of this body',
    );
    expect(store.heldBytes).toBe(held);
  });

  test('a body that asks no room is not refused, even past the budget', async () => {
    const store = new MemoryStore({ nowMs: () => Math.floor(NOW_US / 1000), maxBytes: 1 });
    await new DirectIngest({ store, nowUs: () => NOW_US }).fold([edge('a', 'pone')]);
    expect(() => store.ensureRoom(1)).toThrow(StoreFullError);
    store.ensureRoom(0);
  });

  test('when full, the oldest ring-buffer entries of the project holding the most make room; rollups stay', async () => {
    const nowMs = Math.floor(NOW_US / 1000);
    const store = new MemoryStore({ nowMs: () => nowMs, maxBytes: 200_000 });
    const ingest = new DirectIngest({ store, nowUs: () => NOW_US });
    const large = 'x'.repeat(10_000);
    // One project's ring buffer holds most of the store; another's a little.
    await ingest.fold(
      Array.from({ length: 12 }, (_, i) => edge(`big${i}`, 'pbig', large, NOW_US - (12 - i))),
    );
    await ingest.fold([edge('small', 'psmall')]);
    const logs = async (project: string) =>
      (await store.rangeByScore(recentLogsKey(project), {
        max: Number.POSITIVE_INFINITY,
        minExclusive: Number.NEGATIVE_INFINITY,
        limit: 100,
      })).length;
    expect([await logs('pbig'), await logs('psmall')]).toEqual([12, 1]);
    // A body of 3 more large events does not fit: the oldest of pbig's entries go.
    const room = 200_000 - store.heldBytes;
    const dropped = store.ensureRoom(room + 30_000);
    expect(store.heldBytes + room + 30_000).toBeLessThanOrEqual(200_000);
    expect(await logs('psmall')).toBe(1);
    const left = await logs('pbig');
    expect(left).toBeLessThan(12);
    expect(dropped).toBe(12 - left);
    // The newest are the ones kept.
    const kept = await store.rangeByScore(recentLogsKey('pbig'), {
      max: Number.POSITIVE_INFINITY,
      minExclusive: Number.NEGATIVE_INFINITY,
      limit: 1,
    });
    expect(new TextDecoder().decode(kept[0])).toContain('"big11"');
  });

  test('room is refused only when what is left beyond ring buffers does not fit', async () => {
    const nowMs = Math.floor(NOW_US / 1000);
    const store = new MemoryStore({ nowMs: () => nowMs, maxBytes: 100_000 });
    await new DirectIngest({ store, nowUs: () => NOW_US }).fold([
      edge('a', 'pone', 'x'.repeat(20_000)),
    ]);
    const held = store.heldBytes;
    expect(() => store.ensureRoom(100_000)).toThrow(StoreFullError);
    // Refused room drops nothing.
    expect(store.heldBytes).toBe(held);
  });
});
