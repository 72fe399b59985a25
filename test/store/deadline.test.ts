/**
 * `storeWithDeadline`: answers within the deadline pass through; a call that does not answer
 * fails with a `StoreTimeoutError` naming it, once the deadline passed, and the observer hears of
 * each; after a timeout nothing more is sent until a ping answers. On the embedded store (a real
 * adapter), with calls held back as a stopped Redis holds them.
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

  test('after a timeout, calls wait for one shared ping instead of queueing more commands', async () => {
    const memory = new MemoryStore({ nowMs: Date.now });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const sent: string[] = [];
    const stopped = replacing(memory, {
      readOffset: async (key) => {
        sent.push('readOffset');
        await released;
        return await memory.readOffset(key);
      },
      ping: async () => {
        sent.push('ping');
        await released;
      },
    });
    const said: string[] = [];
    const store = storeWithDeadline(stopped, 30, {
      timedOut: (error) => said.push(error.message),
      answered: () => said.push('answered'),
    });
    // The first call reaches the stopped store and times out; the stall begins.
    await expect(store.readOffset('offset')).rejects.toThrow('readOffset within 30 ms');
    // Twenty retries, five at a time: each waits for the one ping, and fails with it.
    for (let round = 0; round < 4; round += 1) {
      const retries = Array.from({ length: 5 }, () => store.readOffset('offset'));
      for (const retry of retries) {
        await expect(retry).rejects.toThrow('the store did not answer ping within 30 ms');
      }
    }
    expect(sent).toEqual(['readOffset', 'ping']);
    // The store wakes: the held ping answers, which ends the stall; calls are sent again.
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await store.advanceOffset('offset', null, 4)).toBe(true);
    expect(await store.readOffset('offset')).toBe(4);
    expect(sent).toEqual(['readOffset', 'ping', 'readOffset']);
    expect(said.filter((line) => line === 'answered')).toHaveLength(2);
    expect(said.filter((line) => line !== 'answered')).toHaveLength(21);
  });

  test('a ping that answers after a timeout lets the next call through', async () => {
    const { store: held, release } = heldReads();
    let pings = 0;
    const counted = replacing(held as MemoryStore, {
      ping: () => {
        pings += 1;
        return Promise.resolve();
      },
    });
    const store = storeWithDeadline(counted, 30);
    await expect(store.readOffset('offset')).rejects.toThrow('readOffset within 30 ms');
    expect(await store.advanceOffset('offset', null, 9)).toBe(true);
    expect(await store.advanceOffset('offset', 9, 10)).toBe(true);
    // One ping, for the first call after the stall; none once a call answered.
    expect(pings).toBe(1);
    release();
  });
});
