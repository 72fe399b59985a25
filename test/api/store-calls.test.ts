/**
 * The cause of a store call the API answered 503: a store that is away is one outage in the
 * store's outage log (one line, then reminders that count the failed calls), anything else is
 * logged whole.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { guardStore } from '../../api/deadline.ts';
import { HttpError } from '../../api/errors.ts';
import { reportStoreCalls } from '../../api/store-calls.ts';
import { OutageLog } from '../../src/async/outage-log.ts';

interface Line {
  readonly msg: string;
  readonly reason?: string;
  readonly failures?: number;
  readonly err?: { readonly message: string };
}

function captured() {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter((l) => l !== '')) {
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

const away = () => new Error('connect ECONNREFUSED 127.0.0.1:6379');

describe('reportStoreCalls', () => {
  test('calls failing while the store is away: one line, then one per half minute with the count', () => {
    const { lines, logger } = captured();
    let nowMs = 1_000_000;
    const calls = reportStoreCalls({ logger, nowMs: () => nowMs });
    for (let i = 0; i < 50; i++) calls.failed(away());
    nowMs += 30_000;
    calls.failed(away());
    calls.answered();
    calls.failed(away());
    expect(lines.map(({ msg, failures }) => ({ msg, failures }))).toEqual([
      { msg: 'the store is not reachable; retrying', failures: undefined },
      { msg: 'the store still not reachable after 30 s; retrying', failures: 50 },
      { msg: 'the store is reachable again after 30 s', failures: undefined },
      { msg: 'the store is not reachable; retrying', failures: undefined },
    ]);
  });

  test("with the connection's outage log, the connection says when the store is back", () => {
    const { lines, logger } = captured();
    const nowMs = () => 0;
    const outage = new OutageLog({ logger, what: 'the store (redis://127.0.0.1:6379)', nowMs });
    const calls = reportStoreCalls({ logger, nowMs, outage });
    outage.failed(away());
    calls.failed(away());
    // An answer may come from a cache while the store is away: it says nothing of the store.
    calls.answered();
    calls.failed(away());
    expect(lines.map(({ msg }) => msg)).toEqual([
      'the store (redis://127.0.0.1:6379) is not reachable; retrying',
    ]);
    outage.recovered();
    expect(lines.map(({ msg }) => msg)).toHaveLength(2);
  });

  test('a call that went wrong while the store is there is logged whole', () => {
    const { lines, logger } = captured();
    const calls = reportStoreCalls({ logger, nowMs: () => 0 });
    calls.failed(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toBe('store call failed');
    expect(lines[0]?.err?.message).toContain('WRONGTYPE');
  });

  test('calls that time out are the store not answering: one outage line, and back once one answers', async () => {
    const { lines, logger } = captured();
    let nowMs = 1_000_000;
    const calls = reportStoreCalls({ logger, nowMs: () => nowMs });
    const never = new Promise<never>(() => undefined);
    for (let i = 0; i < 3; i++) {
      const error = await guardStore(never, 5, calls).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(HttpError);
      expect(error).toMatchObject({ status: 503 });
    }
    nowMs += 12_000;
    expect(await guardStore(Promise.resolve('rows'), 5, calls)).toBe('rows');
    expect(lines.map(({ msg, reason }) => ({ msg, reason }))).toEqual([
      {
        msg: 'the store is not reachable; retrying',
        reason: 'the store did not answer within 5 ms',
      },
      { msg: 'the store is reachable again after 12 s', reason: undefined },
    ]);
  });

  test("with the connection's outage log, a timeout (the connection is up) is still said, and its end", async () => {
    const { lines, logger } = captured();
    const nowMs = () => 0;
    const outage = new OutageLog({ logger, what: 'the store (redis://127.0.0.1:6379)', nowMs });
    const calls = reportStoreCalls({ logger, nowMs, outage });
    await guardStore(new Promise<never>(() => undefined), 5, calls).catch(() => undefined);
    await guardStore(Promise.resolve(1), 5, calls);
    expect(lines.map(({ msg }) => msg)).toEqual([
      'the store is not reachable; retrying',
      'the store is reachable again after 0 s',
    ]);
    expect(outage.reason).toBeNull();
  });
});
