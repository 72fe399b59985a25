import { describe, expect, test } from 'vitest';
import { Linger } from '../../src/async/linger.ts';

describe('Linger', () => {
  test('a wait ends when its time is up', async () => {
    const linger = new Linger();
    let ended = false;
    const wait = linger.wait(30).then(() => (ended = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(ended).toBe(false);
    await wait;
    expect(ended).toBe(true);
  });

  test('cut ends the wait under way at once, and only that one', async () => {
    const linger = new Linger();
    // Longer than the test's timeout: only the cut can end it.
    const first = linger.wait(600_000);
    linger.cut();
    await first;
    // Nothing under way: a cut is a no-op, and the next wait is not cut by it.
    linger.cut();
    let ended = false;
    const second = linger.wait(20).then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    await second;
    expect(ended).toBe(true);
  });
});
