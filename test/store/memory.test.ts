import { describe } from 'vitest';
import { MemoryStore } from '../../src/store/memory.ts';
import { storeContract } from './contract.ts';

describe('MemoryStore passes the store contract', () => {
  const nowMs = () => Date.UTC(2026, 10, 21, 10, 15, 30);
  let store = new MemoryStore({ nowMs });
  let run = 0;
  storeContract({
    store: () => {
      run += 1;
      store = new MemoryStore({ nowMs });
      return store;
    },
    key: (name, group = 'p') => `contract:{${run}:${group}}:${name}`,
    nowMs,
    fencesResume: true,
  });
});
