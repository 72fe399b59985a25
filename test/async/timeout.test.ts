/**
 * `withTimeout` (src/async/timeout.ts): the work's outcome within the bound, `late`'s past it,
 * and no timer left behind either way.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { withTimeout } from '../../src/async/timeout.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('withTimeout', () => {
  test('the work settled first: its value, or its error, and the timer cleared', async () => {
    await expect(withTimeout(Promise.resolve(7), 1_000, () => 'late')).resolves.toBe(7);
    expect(vi.getTimerCount()).toBe(0);
    const failure = new Error('the work failed');
    await expect(withTimeout(Promise.reject(failure), 1_000, () => 'late')).rejects.toBe(failure);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("past the bound: late's value, or its error; the work's later outcome is ignored", async () => {
    let settle: (value: number) => void = () => undefined;
    const slow = new Promise<number>((resolve) => (settle = resolve));
    const answered = withTimeout(slow, 1_000, () => 'late');
    await vi.advanceTimersByTimeAsync(999);
    let outcome: unknown = 'none yet';
    void answered.then((value) => (outcome = value));
    await Promise.resolve();
    expect(outcome).toBe('none yet');
    await vi.advanceTimersByTimeAsync(1);
    await expect(answered).resolves.toBe('late');
    settle(7);
    await expect(answered).resolves.toBe('late');

    const refusal = new Error('too slow');
    const thrown = withTimeout(new Promise<number>(() => undefined), 50, (): never => {
      throw refusal;
    });
    const seen = thrown.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(50);
    expect(await seen).toBe(refusal);
  });

  test('work that fails after the bound is no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let fail: (error: Error) => void = () => undefined;
      const slow = new Promise<number>((_, reject) => (fail = reject));
      const answered = withTimeout(slow, 10, () => 'late');
      await vi.advanceTimersByTimeAsync(10);
      await expect(answered).resolves.toBe('late');
      fail(new Error('after the bound'));
      vi.useRealTimers();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
