/** The conflict error's rewind point: the earliest of those a flush met, null the earliest. */
import { expect, test } from 'vitest';
import { earlierRewind, OffsetConflictError } from '../../src/rollup/offset-conflict.ts';

test.each<[number | null | undefined, number | null | undefined, number | null | undefined]>([
  [undefined, undefined, undefined],
  [undefined, 7, 7],
  [7, undefined, 7],
  [7, 3, 3],
  [3, 7, 3],
  [7, null, null],
  [null, 7, null],
  [0, 5, 0],
])('earlierRewind(%s, %s) is %s', (a, b, expected) => {
  expect(earlierRewind(a, b)).toBe(expected);
});

test('the error says where the stream is read again from, when it knows', () => {
  expect(new OffsetConflictError('logs.edge/3', 'x', 12).message)
    .toContain('it is read again from offset 12;');
  expect(new OffsetConflictError('logs.edge/3', 'x', null).message)
    .toContain('it is read again from its start;');
  const plain = new OffsetConflictError('logs.edge/3', 'x');
  expect(plain.rewindTo).toBeUndefined();
  expect(plain.message).not.toContain('read again');
  expect(plain.stream).toBe('logs.edge/3');
});
