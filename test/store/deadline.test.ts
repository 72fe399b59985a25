/**
 * `storeWithDeadline`: answers within the deadline pass through; a call that does not answer
 * fails with a `StoreTimeoutError` naming it, once the deadline passed, and the observer hears of
 * each. On the embedded store (a real adapter), with one call held back as a stopped Redis holds it.
 */
import { describe, expect, test } from 'vitest';
import { StoreTimeoutError } from '../../src/store/away.ts';
import { storeWithDeadline } from '../../src/store/deadline.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { RollupStore } from '../../src/store/port.ts';

/** `memory` with `overrides` in place of its own calls. */
function replacing(memory: MemoryStore, overrides: Partial<RollupStore>): RollupStore {
  return new Proxy(memory, {
    get: (target, name: keyof RollupStore) => overrides[name] ?? target[name].bind(target),
  });
}

/** The embedded store, whose `readOffset` answers only once `release` is called. */
function heldReads(): { store: RollupStore; release: () => void } {
  const memory = new MemoryStore({ nowMs: Date.now });
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const store = replacing(memory, {
    readOffset: async (key) => {
      await released;
      return await memory.readOffset(key);
    },
  });
  return { store, release };
}

describe('storeWithDeadline', () => {
  test('a call that answers in time passes its answer through', async () => {
    const said: string[] = [];
    const store = storeWithDeadline(new MemoryStore({ nowMs: Date.now }), 1_000, {
      timedOut: (error) => said.push(error.message),
      answered: () => said.push('answered'),
    });
    expect(await store.advanceOffset('offset', null, 7)).toBe(true);
    expect(await store.readOffset('offset')).toBe(7);
    expect(said).toEqual(['answered', 'answered']);
  });

  test('a call that does not answer fails once the deadline passed, naming the call', async () => {
    const { store: held, release } = heldReads();
    const said: string[] = [];
    const store = storeWithDeadline(held, 50, {
      timedOut: (error) => said.push(error.message),
      answered: () => said.push('answered'),
    });
    const error = await store.readOffset('offset').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreTimeoutError);
    expect((error as Error).message).toBe('the store did not answer readOffset within 50 ms');
    // The other calls are not held.
    expect(await store.advanceOffset('offset', null, 3)).toBe(true);
    expect(said).toEqual(['the store did not answer readOffset within 50 ms', 'answered']);
    release();
    expect(await store.readOffset('offset')).toBe(3);
  });

  test("a failure of the store's own is passed through and not taken for an answer", async () => {
    const memory = new MemoryStore({ nowMs: Date.now });
    const failing = replacing(memory, {
      ping: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')),
    });
    const said: string[] = [];
    const store = storeWithDeadline(failing, 1_000, {
      timedOut: (error) => said.push(error.message),
      answered: () => said.push('answered'),
    });
    await expect(store.ping()).rejects.toThrow('ECONNREFUSED');
    expect(said).toEqual([]);
  });
});
