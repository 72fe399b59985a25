/**
 * What kafkajs says reaches our log as a user needs it: lines kafkajs logs before it retries by
 * itself stay at debug, and nothing it logs carries a stack trace above debug.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { kafkaClient } from '../../src/kafka/client.ts';

/** A kafkajs client whose log lines land in the returned array, as parsed JSON. */
function clientWithLog() {
  const lines: { level: number; msg: string; kafka?: Record<string, unknown> }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line !== '') lines.push(JSON.parse(line) as (typeof lines)[number]);
      }
      done();
    },
  });
  const logger = pino({ level: 'debug' }, sink);
  const kafka = kafkaClient(
    { kafkaClientId: 'client-test', kafkaSecurity: { tls: null, sasl: null } },
    logger,
    ['127.0.0.1:1'],
  );
  return { log: kafka.logger(), lines };
}

const DEBUG = 20;
const WARN = 40;
const ERROR = 50;

describe('kafkajs log lines', () => {
  test('a consumer crash kafkajs restarts from is kept at debug, stack and all', () => {
    const { log, lines } = clientWithLog();
    // As kafkajs's consumer logs a crash (consumer/index.js), then its restart.
    log.error("Crash: KafkaJSProtocolError: The coordinator is loading and hence can't process", {
      groupId: 'g',
      retryCount: 0,
      stack:
        'KafkaJSProtocolError: The coordinator is loading\n    at createErrorFromCode (x.js:1:1)',
    });
    log.error('Restarting the consumer in 300ms', { retryCount: 0, retryTime: 300, groupId: 'g' });
    expect(lines.map((line) => line.level)).toEqual([DEBUG, DEBUG]);
  });

  test('retried responses and connection failures are kept at debug', () => {
    const { log, lines } = clientWithLog();
    log.error('Response JoinGroup(key: 11, version: 5)', { error: 'The coordinator is loading' });
    log.error('Connection error: connect ECONNREFUSED 127.0.0.1:1', { broker: '127.0.0.1:1' });
    log.error(
      'Failed to connect to seed broker, trying another broker from the list: Connection error',
      { retryCount: 0, retryTime: 200 },
    );
    log.error('Failed to connect to broker, reconnecting', { retryCount: 0, retryTime: 200 });
    log.error('Failed to send messages: Connection error', { retryCount: 0, retryTime: 200 });
    log.warn('Limiting retries for the idempotent producer to Number.MAX_SAFE_INTEGER', {});
    // Said once, with the settings to fix, where the call that failed lands.
    log.error(
      'SASL SCRAM SHA512 authentication failed: Authentication failed during authentication',
      { broker: '127.0.0.1:1' },
    );
    log.error('SASL PLAIN authentication failed: Authentication failed', { broker: '127.0.0.1:1' });
    expect(lines.map((line) => line.level)).toEqual(Array(8).fill(DEBUG));
  });

  test('anything else keeps its level and message', () => {
    const { log, lines } = clientWithLog();
    log.warn('The group is rebalancing, re-joining', { groupId: 'g' });
    log.error('Offset out of range, resetting to default offset', { groupId: 'g' });
    log.info('consumer has joined the group', { groupId: 'g' });
    expect(lines.map(({ level, msg }) => ({ level, msg }))).toEqual([
      { level: WARN, msg: 'The group is rebalancing, re-joining' },
      { level: ERROR, msg: 'Offset out of range, resetting to default offset' },
    ]);
    expect(lines[0]?.kafka?.['groupId']).toBe('g');
  });
});
