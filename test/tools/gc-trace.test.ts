/**
 * `bench:consumer`'s reading of V8's `--trace-gc-nvp` lines (tools/bench/gc-trace.ts), on lines
 * as Node 24 prints them.
 *
 * @module
 */
import { expect, test } from 'vitest';
import { gcTraceLine } from '../../tools/bench/gc-trace.ts';

const line = (ms: number, gc: string, allocated: string, promoted: string) =>
  `[4242:0x6a8b000:0]    ${ms} ms: pause=1.3 mutator=40.2 gc=${gc} reduce_memory=0 ` +
  `time_to_safepoint=0.01 heap.prologue=0.00 allocated=${allocated} promoted=${promoted} ` +
  'new_space_survived=1048576 nodes_died_in_new=0';

test('a scavenge and a mark-compact, each with its counts', () => {
  expect(gcTraceLine(line(4015, 's', '524288', '4096'))).toEqual({
    ms: 4015,
    allocatedBytes: 524_288,
    promotedBytes: 4_096,
    scavenge: true,
  });
  expect(gcTraceLine(line(9, 'mc', '0', '0'))?.scavenge).toBe(false);
});

test('a count that wrapped past 2^53 is unknown, not a count', () => {
  const read = gcTraceLine(line(7000, 'mc', '18446744073708551616', '2048'));
  expect(read?.allocatedBytes).toBeNaN();
  expect(read?.promotedBytes).toBe(2_048);
  expect(gcTraceLine(line(7000, 's', '1', '18446744073709549568'))?.promotedBytes).toBeNaN();
});

test('other lines are not collections', () => {
  expect(gcTraceLine('{"level":30,"msg":"consumers running"}')).toBeNull();
  expect(gcTraceLine('[4242:0x6a8b000:0]    12 ms: Scavenge 3.9 (4.2) -> 3.1 (5.2) MB')).toBeNull();
});
