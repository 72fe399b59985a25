import { describe, expect, test } from 'vitest';
import { OutageLog } from '../../src/async/outage-log.ts';
import { KafkaOutage } from '../../consumers/kafka-outage.ts';
import { messagesLogger } from '../support/logged-messages.ts';

/** A Kafka outage log on a clock the test moves, and the lines it wrote. */
function outageOnClock() {
  const lines: string[] = [];
  let nowMs = 0;
  const log = new OutageLog({
    logger: messagesLogger('info', 'kafka-outage', lines),
    what: 'Kafka (b:9092)',
    nowMs: () => nowMs,
  });
  return { outage: new KafkaOutage(log), lines, advance: (ms: number) => (nowMs += ms) };
}

const AWAY = 'Kafka (b:9092) is not reachable; retrying';

describe("Kafka's outages as the consumers say them", () => {
  test('a heartbeat ends an outage after a heartbeat interval with no failure', () => {
    const { outage, lines, advance } = outageOnClock();
    outage.failed(new Error('connect ECONNREFUSED'));
    advance(3_000);
    outage.heartbeat();
    expect(lines).toEqual([AWAY]);
    advance(3_000);
    outage.heartbeat();
    expect(lines).toEqual([AWAY, 'Kafka (b:9092) is reachable again after 6 s']);
  });

  test('failures between heartbeats keep it one outage: no line back, none away again', () => {
    const { outage, lines, advance } = outageOnClock();
    for (let i = 0; i < 5; i++) {
      outage.failed(new Error('the dead-letter partition has no leader'));
      advance(1_000);
      outage.heartbeat();
      advance(2_000);
    }
    expect(lines).toEqual([AWAY]);
  });

  test('a join ends it at once', () => {
    const { outage, lines, advance } = outageOnClock();
    outage.failed(new Error('connect ECONNREFUSED'));
    advance(12_000);
    outage.joined();
    expect(lines).toEqual([AWAY, 'Kafka (b:9092) is reachable again after 12 s']);
    // A failure after it is a new outage.
    outage.failed(new Error('connect ECONNREFUSED'));
    expect(lines.slice(2)).toEqual([AWAY]);
  });

  test('heartbeats with no outage say nothing', () => {
    const { outage, lines } = outageOnClock();
    outage.heartbeat();
    outage.joined();
    outage.heartbeat();
    expect(lines).toEqual([]);
  });
});
