import { describe, expect, test } from 'vitest';
import { MatchGate, type MatchShare } from '../../../api/answer/match-gate.ts';
import { HttpError, rateLimited } from '../../../api/errors.ts';

/** A share of `ms` that records what it is charged; refused once nothing is left. */
function share(ms: number): MatchShare & { spent: number[] } {
  let left = ms;
  const whole = ms;
  const spent: number[] = [];
  return {
    spent,
    spend: (charged) => {
      spent.push(charged);
      left -= charged;
    },
    left: () => left,
    rested: () => left >= whole,
    refusal: () => (left > 0 ? null : rateLimited('share used up', 1_000)),
  };
}

describe('MatchGate', () => {
  test('one costly pattern at a time: the next waits its turn and runs when the first ends', async () => {
    const gate = new MatchGate({ maxWaitMs: 60_000 });
    const order: string[] = [];
    const first = await gate.open();
    await first.nextTurn();
    order.push('first: second slice');
    const second = await gate.open();
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
    const holder = await gate.open();
    await holder.nextTurn();
    const late = await gate.open();
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
    const next = await gate.open();
    await next.nextTurn();
    next.release();
  });

  test('release without a turn taken, or twice, leaves the gate usable', async () => {
    const gate = new MatchGate({ maxWaitMs: 20 });
    const cheap = await gate.open();
    cheap.release();
    const costly = await gate.open();
    await costly.nextTurn();
    costly.release();
    costly.release();
    const again = await gate.open();
    await again.nextTurn();
    again.release();
  });

  test.each([0, -1, 1.5, Number.NaN])('refuses maxWaitMs %s', (maxWaitMs) => {
    expect(() => new MatchGate({ maxWaitMs })).toThrow(
      `'maxWaitMs' must be a positive integer: current value is ${maxWaitMs}`,
    );
  });

  test('every slice, the first included, is charged to the share; time waiting for the gate is not', async () => {
    let nowMs = 0;
    const gate = new MatchGate({ maxWaitMs: 60_000, clockMs: () => nowMs });
    const first = share(1_000);
    const second = share(1_000);
    const holder = await gate.open(first);
    const waiter = await gate.open(second);
    nowMs += 12;
    await holder.nextTurn();
    nowMs += 11;
    const waiting = waiter.nextTurn();
    nowMs += 30;
    holder.release();
    await waiting;
    nowMs += 5;
    waiter.release();
    // Its first slice (0 to 12 ms), then its second (12 to 53 ms).
    expect(first.spent).toEqual([12, 41]);
    // Its first slice (0 to 23 ms), nothing for the 30 ms it waited, then its last 5 ms.
    expect(second.spent).toEqual([23, 5]);
  });

  test("a used-up share refuses its caller's pattern with the share's 429: before it starts, or at its next turn", async () => {
    let nowMs = 0;
    const gate = new MatchGate({ maxWaitMs: 60_000, clockMs: () => nowMs });
    const small = share(20);
    const turns = await gate.open(small);
    nowMs += 15;
    await turns.nextTurn();
    nowMs += 10;
    const refused = await turns.nextTurn().then(() => null, (error: unknown) => error);
    turns.release();
    expect(refused instanceof HttpError && [refused.status, refused.headers]).toEqual([
      429,
      { 'Retry-After': '1' },
    ]);
    await expect(gate.open(small)).rejects.toThrow('share used up');
    // The gate is free for others.
    const other = await gate.open(share(1_000));
    await other.nextTurn();
    other.release();
  });

  test('the next turn goes to the waiting caller with the most share left, and a holder with less hands over', async () => {
    let nowMs = 0;
    const gate = new MatchGate({ maxWaitMs: 60_000, clockMs: () => nowMs });
    const order: string[] = [];
    const flooder = share(300);
    const flood = [await gate.open(flooder), await gate.open(flooder)];
    const honest = await gate.open(share(1_000));
    nowMs += 10;
    await flood[0]?.nextTurn();
    const queued = flood[1]?.nextTurn().then(() => order.push('flood 2'));
    const asked = honest.nextTurn().then(() => order.push('honest'));
    // The holder's caller has less left than the honest one: at its next turn it hands over.
    nowMs += 10;
    const handedOver = flood[0]?.nextTurn().then(() => order.push('flood 1 again'));
    await asked;
    honest.release();
    await queued;
    flood[1]?.release();
    await handedOver;
    flood[0]?.release();
    expect(order).toEqual(['honest', 'flood 2', 'flood 1 again']);
  });

  test('a caller whose share is not whole waits for the gate before its first slice; a rested one starts at once', async () => {
    const gate = new MatchGate({ maxWaitMs: 60_000, clockMs: () => 0 });
    const holder = await gate.open(share(1_000));
    await holder.nextTurn();
    const order: string[] = [];
    const used = share(1_000);
    used.spend(10);
    const opening = gate.open(used).then((turns) => {
      order.push('used share starts');
      return turns;
    });
    const rested = await gate.open(share(1_000));
    order.push('rested share starts');
    await new Promise((resolve) => setTimeout(resolve, 5));
    order.push('holder releases');
    holder.release();
    rested.release();
    (await opening).release();
    expect(order).toEqual(['rested share starts', 'holder releases', 'used share starts']);
  });
});
