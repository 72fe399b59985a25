import { describe } from 'vitest';
import { MemoryStore } from '../../src/store/memory.ts';
import { boundarySuite } from './boundaries.ts';

describe('CONTRACT section 5 boundaries on the rollup path, in the in-memory store', () => {
  // The store's clock is the real one: every instant the suite reads at lies ahead of it.
  boundarySuite(() => Promise.resolve(new MemoryStore({ nowMs: Date.now })));
});
