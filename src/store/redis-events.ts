/**
 * What node-redis says of its connections beyond a call's answer: a connection established
 * again after it was lost, and a Redis Cluster's redirections (MOVED: the slot lives elsewhere
 * now, after a failover or a resharding; ASK: the slot is being migrated). node-redis publishes
 * both on Node's diagnostics channels, which are process-wide: the watcher hears every Redis
 * client of the process (a service process opens one store).
 *
 * @example
 * ```ts
 * const stop = watchRedisEvents({
 *   reconnected: () => console.log('reconnected'),
 *   redirected: (kind) => console.log(kind),
 * });
 * stop();
 * ```
 *
 * @module
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';

/** node-redis's channels (`@redis/client`'s `lib/client/tracing.js`). */
const READY = 'node-redis:connection:ready';
const ERROR = 'node-redis:error';

/** What {@link watchRedisEvents} reports. */
export interface RedisEventObserver {
  /** A connection that had been ready before is ready again. */
  reconnected(): void;
  /** A Cluster command was redirected to another node. */
  redirected(kind: 'moved' | 'ask'): void;
}

function field(message: unknown, name: string): unknown {
  return typeof message === 'object' && message !== null
    ? (message as Record<string, unknown>)[name]
    : undefined;
}

/** Most client ids remembered: a process has a few connections (one per Cluster node). */
const MAX_CLIENTS = 1_024;

/** Reports node-redis's reconnections and redirections to `observer`; returns the unsubscriber. */
export function watchRedisEvents(observer: RedisEventObserver): () => void {
  const seen = new Set<unknown>();
  const onReady = (message: unknown) => {
    const client = field(message, 'clientId');
    if (seen.has(client)) observer.reconnected();
    else if (seen.size < MAX_CLIENTS) seen.add(client);
  };
  const onError = (message: unknown) => {
    const error = field(message, 'error');
    if (field(message, 'origin') !== 'cluster' || !(error instanceof Error)) return;
    if (error.message.startsWith('MOVED')) observer.redirected('moved');
    else if (error.message.startsWith('ASK')) observer.redirected('ask');
  };
  subscribe(READY, onReady);
  subscribe(ERROR, onError);
  return () => {
    unsubscribe(READY, onReady);
    unsubscribe(ERROR, onError);
  };
}
