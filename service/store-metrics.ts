/**
 * Prometheus metrics of the store, as the process that uses it sees it (the consumers, the API,
 * or both in one process): each port call's latency and failures by call, the writes the store
 * refused by reason, the parts writers read back, reconnections and Redis Cluster redirections.
 * Labels are the port's call names and fixed words: bounded, never a key or a project.
 *
 * @module
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { REFUSAL_REASONS, STORE_COMMANDS, type StoreObserver } from '../src/store/observed.ts';
import type { RedisEventObserver } from '../src/store/redis-events.ts';
import { WRITE_REFUSALS, type WriteRefusal } from '../src/store/write-refusal.ts';

/** What the store's metrics are told: its calls and events, and whether it refuses writes now. */
export interface StoreMetrics extends StoreObserver, RedisEventObserver {
  writeRefused(reason: WriteRefusal): void;
  /** The store refuses writes for `reason` now, or (null) accepts them. */
  refusing(reason: WriteRefusal | null): void;
}

/** Latency buckets, in seconds: a local Redis answers in well under a millisecond. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Registers the store's metrics on `registry`; the observer feeds them (hand it to
 * `observedStore` and `watchRedisEvents`).
 *
 * @example
 * ```ts
 * const observer = registerStoreMetrics(registry);
 * const store = observedStore(opened.store, observer);
 * const unwatch = watchRedisEvents(observer);
 * ```
 */
export function registerStoreMetrics(registry: Registry): StoreMetrics {
  const duration = new Histogram({
    name: 'store_command_duration_seconds',
    help: 'Time of one store call (one or a few pipelined Redis commands), by call.',
    labelNames: ['command'] as const,
    buckets: STORE_BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: 'store_command_errors_total',
    help: 'Store calls that failed (Redis away, timed out, refused the command), by call.',
    labelNames: ['command'] as const,
    registers: [registry],
  });
  const refused = new Counter({
    name: 'store_writes_refused_total',
    help: 'Writes the store refused, by reason: another writer took the stream, or the store ' +
      'lost or rolled back data (watermark, resume, part_found); or a Redis that answers ' +
      'refused the write: full (maxmemory), readonly (a replica), misconf (snapshots failing), ' +
      'busy (a script running), noperm (the user lacks a command).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const refusing = new Gauge({
    name: 'store_refusing_writes',
    help: '1 while the store refuses writes for this reason (full, readonly, misconf, busy, ' +
      'noperm): the writes wait and answers go stale; 0 otherwise.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const partsRead = new Counter({
    name: 'store_parts_read_total',
    help: 'Parts a writer read back from the store because it did not hold them (first write ' +
      'of a bucket since a start, a reopen or an eviction from its cache).',
    registers: [registry],
  });
  const reconnects = new Counter({
    name: 'store_reconnects_total',
    help: 'Connections to Redis established again after they were lost.',
    registers: [registry],
  });
  const redirections = new Counter({
    name: 'store_cluster_redirections_total',
    help: 'Redis Cluster commands redirected to another node, by kind: moved (a failover or ' +
      'a resharding moved the slot), ask (the slot is being migrated).',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  // Every series from 0, so that rates and alerts have a series before the first event; each
  // call's series bound once, so that a call is not charged for finding them by its labels.
  const byCommand = new Map(STORE_COMMANDS.map((command) => {
    errors.inc({ command }, 0);
    return [command, {
      duration: duration.labels({ command }),
      errors: errors.labels({ command }),
    }];
  }));
  for (const reason of [...REFUSAL_REASONS, ...WRITE_REFUSALS]) refused.inc({ reason }, 0);
  for (const reason of WRITE_REFUSALS) refusing.set({ reason }, 0);
  for (const kind of ['moved', 'ask']) redirections.inc({ kind }, 0);
  return {
    command(command, seconds, failed) {
      const series = byCommand.get(command);
      series?.duration.observe(seconds);
      if (failed) series?.errors.inc();
    },
    refused: (reason) => refused.inc({ reason }),
    writeRefused: (reason) => refused.inc({ reason }),
    refusing: (now) => {
      for (const reason of WRITE_REFUSALS) refusing.set({ reason }, reason === now ? 1 : 0);
    },
    partsRead: (parts) => partsRead.inc(parts),
    reconnected: () => reconnects.inc(),
    redirected: (kind) => redirections.inc({ kind }),
  };
}
