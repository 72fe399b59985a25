import { describe, expect, it } from 'vitest';
import { exceedsDepth } from '../../src/events/depth.ts';
import type { Json } from '../../src/events/types.ts';

function nested(levels: number): Json {
  let value: Json = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { key: value };
  return value;
}

describe('exceedsDepth', () => {
  it.each([
    [nested(0), 0, false],
    [nested(1), 0, true],
    [nested(1), 1, false],
    [nested(3), 3, false],
    [nested(4), 3, true],
    [[1, { a: 'x' }, []], 2, false],
    [[1, { a: ['x'] }], 2, true],
    [null, 0, false],
    [undefined, 0, false],
  ])('%j within %d: %s', (value, limit, expected) => {
    expect(exceedsDepth(value, limit)).toBe(expected);
  });

  it('stops early on a value far deeper than the stack would allow', () => {
    expect(exceedsDepth(nested(200_000), 32)).toBe(true);
  });
});
