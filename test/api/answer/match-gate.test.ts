import { describe, expect, test } from 'vitest';
import { MatchGate } from '../../../api/answer/match-gate.ts';
import { HttpError } from '../../../api/errors.ts';

describe('MatchGate', () => {
  test('one costly pattern at a time: the next waits its turn and runs when the first ends', async () => {
    const gate = new MatchGate({ maxWaitMs: 60_000 });
    const order: string[] = [];
    const first = gate.open();
    await first.nextTurn();
    order.push('first: second slice');
    const second = gate.open();
    const waiting = second.nextTurn().then(() => order.push('second: second slice'));
    await first.nextTurn();
    order.push('first: third slice');
    first.release();
    await waiting;
    second.release();
    expect(order).toEqual(['first: second slice', 'first: third slice', 'second: second slice']);
  });

  test('a pattern that waits longer than maxWaitMs gets 503 unavailable with Retry-After', async () => {
    const gate = new MatchGate({ maxWaitMs: 20 });
    const holder = gate.open();
    await holder.nextTurn();
    const late = gate.open();
    const refused = await late.nextTurn().then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused instanceof HttpError && [refused.status, refused.headers]).toEqual([
      503,
      { 'Retry-After': '1' },
    ]);
    expect(refused instanceof HttpError && refused.message).toBe(
      'another costly project pattern is being matched, and this one waited 20 ms for its turn; ' +
        'retry shortly (a plain project ref is matched by substring search and never waits)',
    );
    late.release();
    holder.release();
    // The gate is free again: the next costly pattern runs at once.
    const next = gate.open();
    await next.nextTurn();
    next.release();
  });

  test('release without a turn taken, or twice, leaves the gate usable', async () => {
    const gate = new MatchGate({ maxWaitMs: 20 });
    const cheap = gate.open();
    cheap.release();
    const costly = gate.open();
    await costly.nextTurn();
    costly.release();
    costly.release();
    const again = gate.open();
    await again.nextTurn();
    again.release();
  });

  test.each([0, -1, 1.5, Number.NaN])('refuses maxWaitMs %s', (maxWaitMs) => {
    expect(() => new MatchGate({ maxWaitMs })).toThrow(
      `'maxWaitMs' must be a positive integer: current value is ${maxWaitMs}`,
    );
  });
});
