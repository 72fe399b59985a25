/**
 * The cause of a store call the API answered 503: a store that is away is one outage in the
 * store's outage log (one line, then reminders that count the failed calls), anything else is
 * logged whole.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { reportStoreCalls } from '../../api/store-calls.ts';
import { OutageLog } from '../../src/async/outage-log.ts';

interface Line {
  readonly msg: string;
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
});
