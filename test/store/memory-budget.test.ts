/**
 * The embedded store's estimate of what it holds follows every write, overwrite, trim and expiry
 * (it comes back to nothing once everything expired), and its budget refuses room past the limit
 * without forgetting anything that has not expired.
 */
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { HOSTS_KEY } from '../../src/rollup/keys.ts';
import { StoreFullError } from '../../src/store/memory-budget.ts';
import { MemoryStore } from '../../src/store/memory.ts';

const NOW_US = 1_795_256_130_123_456;
const YEAR_MS = 366 * 86_400_000;

function edge(id: string, project: string): LogEvent {
  const text = JSON.stringify({
    id,
    timestamp: NOW_US - 1_000_000,
    project,
    event_message: 'GET | 200',
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
    expect(() => store.ensureRoom(0)).toThrow(StoreFullError);
    // Enough keys that the sweeps of the commits stop part way through the maps.
    for (let call = 0; call < 3; call++) {
      await ingest.fold(
        Array.from({ length: 20 }, (_, i) => edge(`m${call}-${i}`, `p${call}x${i}`)),
      );
    }
    // A year later every key with an expiry is gone (a refusal first forgets them, hashes and
    // sorted sets alike): what is left is the host registry, trimmed only by later writes.
    nowMs += YEAR_MS;
    expect(() => store.ensureRoom(0)).toThrow(StoreFullError);
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
    const room = 1_000_000 - held;
    store.ensureRoom(room);
    expect(() => store.ensureRoom(room + 1)).toThrow(
      `the embedded store holds an estimated ${held} bytes of its budget of 1000000 bytes ` +
        `(MEMORY_STORE_MAX_BYTES), with no room for the ${room + 1} bytes of this body`,
    );
    expect(store.heldBytes).toBe(held);
  });
});
