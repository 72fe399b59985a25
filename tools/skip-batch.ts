/**
 * `npm run consumers:skip -- --topic T --partition P --from A --to B --reason "..."`: skips the
 * batch at offsets A to B - 1 of a partition the consumers paused because they cannot decode it,
 * and records the skip on the dead-letter topic (see `tools/skip/skip.ts`). The offsets are the
 * ones the consumers' log line and `/healthz` name. Store, brokers and topic prefix come from the
 * environment, as for the consumers.
 *
 * @module
 */
import process from 'node:process';
import { Partitioners } from 'kafkajs';
import { ConfigError, loadConfig } from '../src/config.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { topicNames } from '../src/kafka/topics.ts';
import { createLogger } from '../src/logger.ts';
import { openStore } from '../src/store/open.ts';
import { skipBatch, SkipError } from './skip/skip.ts';
import { withTimeout } from '../src/async/timeout.ts';
import { toolArgs } from './tool-args.ts';

/** How long the skip waits for the store to answer before giving up. */
const STORE_WAIT_MS = 30_000;

const USAGE = 'usage: npm run consumers:skip -- --topic T --partition P --from A --to B ' +
  '--reason "why"';

function fail(message: string): never {
  process.stderr.write(`consumers:skip: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function integer(name: string, text: string | undefined): number {
  const value = Number(text);
  if (text === undefined || !Number.isSafeInteger(value) || value < 0) {
    fail(`--${name} must be an integer of at least 0: got ${JSON.stringify(text)}`);
  }
  return value;
}

const { values } = toolArgs(import.meta.url, {
  options: {
    topic: { type: 'string' },
    partition: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    reason: { type: 'string' },
  },
});
if (values.topic === undefined) fail('--topic is required');
if (values.reason === undefined || values.reason.trim() === '') {
  fail('--reason is required: it is recorded with what is skipped');
}
let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
if (config.kafkaBrokers === null) fail('set KAFKA_BROKERS, as for the consumers');
const logger = createLogger('warn', 'consumers:skip');
// A Redis connects in the background, and a call before it has fails at once (the client is
// offline): the skip waits for the store first, as long as STORE_WAIT_MS, then says why not.
let storeError: Error | null = null;
let storeReady: () => void = () => undefined;
const reached = new Promise<void>((resolve) => (storeReady = resolve));
const { store } = openStore(config.store, {
  nowMs: () => Date.now(),
  onReady: () => storeReady(),
  onError: (error) => (storeError = error),
});
await withTimeout(reached, STORE_WAIT_MS, () => {
  const why = (storeError as Error | null)?.message ?? 'no answer';
  process.stderr.write(
    `consumers:skip: the store did not answer within ${STORE_WAIT_MS / 1000} s (${why}): ` +
      'nothing was skipped; check the store settings (as for the consumers) and retry\n',
  );
  process.exit(1);
});
const producer = kafkaClient(config, logger, config.kafkaBrokers).producer({
  allowAutoTopicCreation: false,
  createPartitioner: Partitioners.DefaultPartitioner,
});
const request = {
  topic: values.topic,
  partition: integer('partition', values.partition),
  from: integer('from', values.from),
  to: integer('to', values.to),
  reason: values.reason,
};
try {
  await skipBatch(
    store,
    async () => {
      await producer.connect();
      return producer;
    },
    topicNames(config.kafkaTopicPrefix).deadLetter,
    request,
    () => Date.now(),
  );
  console.log(
    `skipped ${request.topic}/${request.partition} offsets ${request.from} to ${
      request.to - 1
    }, recorded on the dead-letter topic (rejection-kind: skipped)`,
  );
} catch (error) {
  if (error instanceof SkipError) fail(error.message);
  throw error;
} finally {
  await producer.disconnect().catch(() => undefined);
  await store.close();
}
