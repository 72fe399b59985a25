/**
 * Why a consumer's batch failed, for the log and `consumer_batch_failures_total{reason}`, and the
 * one line (or none) it is worth. The batch is fetched again after a pause whatever the reason.
 *
 * @example
 * ```ts
 * const reason = logBatchError(logger, error, 'logs.edge/3', (e) => kafkaOutage.failed(e));
 * metrics.countBatchFailure(reason); // 'kafka_away', 'store_away', ...
 * ```
 *
 * @module
 */
import { isKafkaAway } from '../src/kafka/client.ts';
import type { Logger } from '../src/logger.ts';
import { OffsetConflictError } from '../src/rollup/offset-conflict.ts';
import { isStoreAway, StoreTimeoutError } from '../src/store/away.ts';
import { writeRefusalOf } from '../src/store/write-refusal.ts';
import { messageOf } from '../src/text/error-message.ts';
import type { BatchFailure } from './metrics.ts';

/** Why a batch failed. */
export function batchFailure(error: unknown): BatchFailure {
  // First: kafkajs's errors quote the socket's (`connect ECONNREFUSED ...`), as a store's do.
  if (isKafkaAway(error)) return 'kafka_away';
  if (isStoreAway(error)) return 'store_away';
  if (error instanceof StoreTimeoutError) return 'store_timeout';
  if (writeRefusalOf(error) !== null) return 'store_refused';
  return error instanceof OffsetConflictError ? 'store_changed' : 'other';
}

/**
 * A failed batch (it is fetched again after a pause). A store that is away is said by whoever
 * opened it, once, and one that does not answer in time by the consumers' store deadline (see
 * `store-deadline.ts`); Kafka away, by `kafkaAway` (an outage log: once, then a reminder); a store
 * that no longer holds what was written (lost or rolled back, or the partition moved) is repaired
 * by resuming where the store says, and said without a stack; one that refuses writes while it
 * answers (full, read-only, ...) is said by the store's refusal log (src/store/refusal-log.ts),
 * once, with what to do; anything else is logged whole.
 */
export function logBatchError(
  logger: Logger,
  error: unknown,
  stream: string,
  kafkaAway: (error: unknown) => void,
): BatchFailure {
  const reason = batchFailure(error);
  if (reason === 'store_away' || reason === 'store_timeout') {
    logger.debug({ reason: messageOf(error), stream }, 'batch failed: the store is away; retrying');
  } else if (reason === 'store_refused') {
    logger.debug(
      { reason: messageOf(error), stream },
      'batch failed: the store refuses writes; retrying',
    );
  } else if (reason === 'kafka_away') {
    logger.debug({ reason: messageOf(error), stream }, 'batch failed: Kafka is away; retrying');
    kafkaAway(error);
  } else if (reason === 'store_changed') {
    logger.warn(
      { stream, reason: messageOf(error) },
      'the store changed under this consumer; resuming where it says',
    );
  } else {
    logger.warn({ err: error, stream }, 'batch failed; retrying');
  }
  return reason;
}
