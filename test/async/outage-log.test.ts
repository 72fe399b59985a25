/**
 * The outage log: one line when a dependency goes away, reminders every half minute with the
 * failures since the last line, one line when it answers again; with `warnAfterFailures`, failures
 * fewer than that in a row (an answer between) say nothing, neither the outage nor its end.
 */
import { describe, expect, test } from 'vitest';
import { OutageLog } from '../../src/async/outage-log.ts';
import { messagesLogger } from '../support/logged-messages.ts';

function loggedMessages() {
  const messages: string[] = [];
  return { messages, logger: messagesLogger('info', 'outage-log', messages) };
}

const slow = new Error('the store did not answer readOffset within 1500 ms');

describe('OutageLog', () => {
  test('by default the first failure is an outage, and its end is said', () => {
    const { logger, messages } = loggedMessages();
    let nowMs = 0;
    const outage = new OutageLog({ logger, what: 'the store', nowMs: () => nowMs });
    outage.failed(slow);
    nowMs += 2_000;
    outage.recovered();
    expect(messages).toEqual([
      'the store is not reachable; retrying',
      'the store is reachable again after 2 s',
    ]);
  });

  test('with warnAfterFailures 2, one failure followed by an answer says nothing', () => {
    const { logger, messages } = loggedMessages();
    const outage = new OutageLog({
      logger,
      what: 'the store',
      nowMs: () => 0,
      warnAfterFailures: 2,
    });
    for (let i = 0; i < 5; i++) {
      outage.failed(slow);
      expect(outage.reason).toBe(slow.message);
      outage.recovered();
      expect(outage.reason).toBeNull();
    }
    expect(messages).toEqual([]);
  });

  test('with warnAfterFailures 2, two in a row are an outage, timed from the first', () => {
    const { logger, messages } = loggedMessages();
    let nowMs = 0;
    const outage = new OutageLog({
      logger,
      what: 'the store',
      nowMs: () => nowMs,
      warnAfterFailures: 2,
    });
    outage.failed(slow);
    nowMs += 1_500;
    outage.failed(slow);
    for (let i = 0; i < 7; i++) outage.failed(slow);
    nowMs += 30_000;
    outage.failed(slow);
    nowMs += 500;
    outage.recovered();
    expect(messages).toEqual([
      'the store is not reachable; retrying',
      'the store still not reachable after 32 s; retrying',
      'the store is reachable again after 32 s',
    ]);
  });
});
