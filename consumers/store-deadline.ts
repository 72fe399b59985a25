/**
 * The deadline of every store call a consumer makes. Without one, a Redis that stops answering
 * while its connection stays up (its process stopped, `CLIENT PAUSE`, a network that drops
 * packets) holds a batch for as long as it is away; past the group's session timeout the member,
 * which heartbeats only between batches, is evicted and the group rebalances. With it, the batch
 * fails, is fetched again after a pause (the processor re-reads the stored offset first), and the
 * member heartbeats in between; once a call timed out, nothing more is sent until a ping answers.
 * An outage (two timeouts in a row) is said once in the log, then every half minute, and once
 * more when a call answers again; the deadline in force is logged at the start.
 *
 * The deadline is `STORE_TIMEOUT_MS`, the API's, but never more than a quarter of the session
 * timeout: a failed batch may wait for up to three calls in turn (a recovery of the partition
 * under way, the flush in flight, the re-read of the stored offset) before the member heartbeats
 * again. A call that applies after its deadline is safe (see `src/store/deadline.ts`).
 *
 * @example
 * ```ts
 * const bounded = consumerStore(store, config, logger, nowMs);
 * ```
 *
 * @module
 */
import { OutageLog } from '../src/async/outage-log.ts';
import type { Config } from '../src/config.ts';
import type { Logger } from '../src/logger.ts';
import { storeWithDeadline } from '../src/store/deadline.ts';
import type { RollupStore } from '../src/store/port.ts';

/** Calls a failed batch may wait for in turn before its member heartbeats again. */
const CALLS_PER_BATCH = 4;

/**
 * The longest a consumer waits for one store call, in ms: `STORE_TIMEOUT_MS`, at most a quarter
 * of `KAFKA_SESSION_TIMEOUT_MS`.
 *
 * @example
 * ```ts
 * consumerStoreDeadlineMs({ storeTimeoutMs: 5_000, consumerSessionTimeoutMs: 6_000 }); // 1500
 * ```
 */
export function consumerStoreDeadlineMs(
  config: Pick<Config, 'storeTimeoutMs' | 'consumerSessionTimeoutMs'>,
): number {
  return Math.min(
    config.storeTimeoutMs,
    Math.floor(config.consumerSessionTimeoutMs / CALLS_PER_BATCH),
  );
}

/** `store` with the consumers' deadline on every call, its timeouts said in `logger`'s log. */
export function consumerStore(
  store: RollupStore,
  config: Pick<Config, 'storeTimeoutMs' | 'consumerSessionTimeoutMs'>,
  logger: Logger,
  nowMs: () => number,
): RollupStore {
  const ms = consumerStoreDeadlineMs(config);
  logger.info(
    { storeDeadlineMs: ms },
    ms < config.storeTimeoutMs
      ? `the consumers give up on a store call after ${ms} ms: a quarter of ` +
        `KAFKA_SESSION_TIMEOUT_MS (${config.consumerSessionTimeoutMs}), which is less than ` +
        `STORE_TIMEOUT_MS (${config.storeTimeoutMs})`
      : `the consumers give up on a store call after ${ms} ms (STORE_TIMEOUT_MS)`,
  );
  // Two timeouts in a row, the second the stall's ping (see storeWithDeadline), make an outage;
  // one slow call followed by an answer is counted (store_timeout) but not said.
  const outage = new OutageLog({
    logger,
    what: 'the store (for the consumers)',
    nowMs,
    warnAfterFailures: 2,
  });
  return storeWithDeadline(store, ms, {
    timedOut: (error) => outage.failed(error),
    answered: () => outage.recovered(),
  });
}
