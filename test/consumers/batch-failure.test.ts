import {
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { batchFailure, logBatchError } from '../../consumers/batch-failure.ts';
import { OffsetConflictError } from '../../src/rollup/offset-conflict.ts';
import { StoreTimeoutError } from '../../src/store/away.ts';

/** A logger whose lines (level and message) are kept. */
function keptLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const raw of chunk.toString('utf8').split('\n')) {
          if (raw !== '') lines.push(JSON.parse(raw) as { level: number; msg: string });
        }
        done();
      },
    }),
  );
  return { logger, lines };
}

describe('why a batch failed', () => {
  test("kafkajs's connection errors are Kafka's, quoting the socket as a store's do", () => {
    const refused = new KafkaJSConnectionError(
      'Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    );
    expect(batchFailure(refused)).toBe('kafka_away');
    expect(batchFailure(new KafkaJSConnectionError('Connection error: read ECONNRESET'))).toBe(
      'kafka_away',
    );
    expect(
      batchFailure(
        new KafkaJSNumberOfRetriesExceeded(refused, { retryCount: 5, retryTime: 3_000 }),
      ),
    ).toBe('kafka_away');
  });

  test('retries given up are as away as what was retried', () => {
    const retried = (cause: Error) =>
      new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: 5, retryTime: 3_000 });
    expect(batchFailure(retried(new KafkaJSConnectionError('Connection error: timeout')))).toBe(
      'kafka_away',
    );
    expect(batchFailure(retried(new KafkaJSProtocolError('The coordinator is loading')))).toBe(
      'kafka_away',
    );
    expect(batchFailure(retried(new TypeError('a defect, retried')))).toBe('other');
  });

  test("the store's", () => {
    expect(batchFailure(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe('store_away');
    expect(batchFailure(new StoreTimeoutError(5_000, 'commitProject'))).toBe('store_timeout');
    expect(batchFailure(new OffsetConflictError('logs.edge/0', 'the store lost it'))).toBe(
      'store_changed',
    );
    expect(batchFailure(new Error('something else'))).toBe('other');
  });

  test('Kafka away is told to its outage log; the store away is not', () => {
    const { logger, lines } = keptLogger();
    const told: unknown[] = [];
    const refused = new KafkaJSConnectionError(
      'Connection error: connect ECONNREFUSED 127.0.0.1:9092',
    );
    expect(logBatchError(logger, refused, 'logs.edge/0', (error) => told.push(error))).toBe(
      'kafka_away',
    );
    expect(told).toEqual([refused]);
    expect(lines.map((line) => line.msg)).toEqual(['batch failed: Kafka is away; retrying']);
    logBatchError(
      logger,
      new Error('connect ECONNREFUSED 127.0.0.1:6379'),
      'logs.edge/0',
      (error) => told.push(error),
    );
    expect(told).toHaveLength(1);
  });
});
