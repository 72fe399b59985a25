import { describe, expect, it } from 'vitest';
import {
  type HeapProfileNode,
  type SamplingHeapProfile,
  splitAllocations,
} from '../../tools/bench/allocation-stages.ts';
import type { CallFrame } from '../../tools/bench/profile-stages.ts';
import { profileRoot } from './profile-frames.ts';

const { root: ROOT, frame } = profileRoot('allocation-stages');

let nextId = 1;
/** A node of `callFrame` that allocated `selfSize` bytes itself, over `children`. */
function node(callFrame: CallFrame, selfSize: number, children: HeapProfileNode[] = []) {
  return { id: nextId++, callFrame, selfSize, children };
}

describe('splitAllocations', () => {
  // root → processor → fold.add (300 B) → a builtin (200 B: the fold's, its caller)
  //                  → node-redis encodeCommand (500 B) → node:net writev (100 B: node-redis's)
  //                  → (its own 50 B: other)
  const builtin = node(frame('', 'push'), 200);
  const add = node(frame('src/rollup/fold.ts', 'add', 171), 300, [builtin]);
  const writev = node(frame('node:internal/stream_base_commons', 'writevGeneric', 120), 100);
  const encode = node(
    frame('node_modules/@redis/client/dist/lib/RESP/encoder.js', 'encodeCommand', 3),
    500,
    [writev],
  );
  const processor = node(frame('consumers/partition-processor.ts', '#process', 241), 50, [
    add,
    encode,
  ]);
  const profile: SamplingHeapProfile = { head: node(frame('', '(root)'), 0, [processor]) };
  const split = splitAllocations(profile, ROOT);

  it('gives each node its bytes to the stage of its stack, as a CPU sample', () => {
    expect(split.total).toBe(1_150);
    expect(split.bytes.get('fold')).toBe(500);
    expect(split.bytes.get('redis')).toBe(600);
    expect(split.bytes.get('other')).toBe(50);
    expect(split.bytes.get('parse')).toBe(0);
  });

  it('names the nearest frame with a file, one-based line, with its stage', () => {
    expect(Object.fromEntries(split.frames)).toEqual({
      'add src/rollup/fold.ts:172': { stage: 'fold', bytes: 500 },
      'encodeCommand node_modules/@redis/client/dist/lib/RESP/encoder.js:4': {
        stage: 'redis',
        bytes: 500,
      },
      'writevGeneric node:internal/stream_base_commons:121': { stage: 'redis', bytes: 100 },
      '#process consumers/partition-processor.ts:242': { stage: 'other', bytes: 50 },
    });
  });
});
