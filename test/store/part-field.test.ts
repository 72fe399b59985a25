import { Buffer } from 'node:buffer';
import { expect, test } from 'vitest';
import { partField, slotOfField, slotOfFieldBytes } from '../../src/store/part-field.ts';

test.each([
  ['logs.edge/3', undefined],
  ['logs.edge/3', '17'],
  ['ingest/a b', '0'],
  ['t/0', 'é'],
  ['t/0', ''],
])('the slot of the field of %s in slot %s, from its text and from its bytes', (stream, slot) => {
  const field = partField(stream, slot);
  const expected = slot === undefined ? null : slot;
  expect(slotOfField(field)).toBe(expected);
  expect(slotOfFieldBytes(Buffer.from(field))).toBe(expected);
});
