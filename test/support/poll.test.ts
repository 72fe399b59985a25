import { describe, expect, test } from 'vitest';
import { until } from './poll.ts';

describe('until', () => {
  test('answers the first value a probe gives', async () => {
    let calls = 0;
    expect(await until('a value', 5_000, () => Promise.resolve(++calls < 2 ? null : calls)))
      .toBe(2);
  });

  test('on timeout, says what it waited for and why the last probe that failed did', async () => {
    const failing = until('the topics', 0, () => Promise.reject(new Error('edge still listed')));
    await expect(failing).rejects.toThrow(
      'waited 0 ms for the topics; the last probe: edge still listed',
    );
    await expect(until('nothing', 0, () => Promise.resolve(null))).rejects.toThrow(
      /^waited 0 ms for nothing$/,
    );
  });
});
