import { describe } from 'vitest';
import { MemoryStore } from '../../src/store/memory.ts';
import { foldAndReadSuite } from './fold-and-read.ts';

describe('fold and read on the in-memory store', () => {
  foldAndReadSuite(() => Promise.resolve(new MemoryStore({ nowMs: Date.now })));
});
