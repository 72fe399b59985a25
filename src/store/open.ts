/**
 * Opens the store the configuration names, without waiting for it: a Redis that is not up yet
 * (or restarts) makes every call fail at once until it answers, so the process can start, say
 * it is not ready, and serve 503 instead of exiting or hanging.
 *
 * @module
 */
import type { StoreMemory, WriteRefusal } from './write-refusal.ts';
import type { RedisSecurity, StoreConfig } from '../config.ts';
import type { ChangeFeed } from './changes.ts';
import type { MemoryBudget } from './memory-budget.ts';
import { redisFailure } from './login-failure.ts';
import { MemoryStore } from './memory.ts';
import type { RollupStore } from './port.ts';
import { type RedisAccess, RedisStore } from './redis.ts';
import { UpstashStore } from './upstash.ts';

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** The clock, in Unix ms. */
  readonly nowMs: () => number;
  /** Connection errors (the store keeps trying). */
  readonly onError?: (error: Error) => void;
  /**
   * Each time a connection to Redis is (re)established; for the embedded store and Upstash
   * (which keep no connection), once at open.
   */
  readonly onReady?: () => void;
}

/** An opened store, and what its server says of its eviction. */
export interface OpenedStore {
  readonly store: RollupStore;
  /**
   * The server's `maxmemory-policy`, or null when there is no such thing (the embedded store)
   * or the server does not say (Upstash; a managed Redis that refuses CONFIG).
   */
  evictionPolicy(): Promise<string | null>;
  /** How full the server is, or null where there is no server or it does not say. */
  memory(): Promise<StoreMemory | null>;
  /** Why the server would refuse writes now (src/store/write-refusal.ts), or null. */
  refusalNow(): Promise<WriteRefusal | null>;
  /**
   * The embedded store's memory budget, which the direct ingest asks for room; null for a Redis
   * (its own `maxmemory` bounds it) and Upstash.
   */
  readonly budget: MemoryBudget | null;
  /**
   * Where its commits are signalled (src/store/changes.ts); null where no signal can be heard
   * (Upstash's REST API has no subscriptions): a listener refreshes on its own schedule there.
   */
  readonly changes: ChangeFeed | null;
}

/** Opens the configured store; a Redis over TCP is connected in the background. */
export function openStore(config: StoreConfig, options: OpenStoreOptions): OpenedStore {
  switch (config.kind) {
    case 'memory': {
      const store = new MemoryStore({ nowMs: options.nowMs, maxBytes: config.maxBytes });
      queueMicrotask(() => options.onReady?.());
      return {
        store,
        evictionPolicy: () => Promise.resolve(null),
        memory: () => Promise.resolve(null),
        refusalNow: () => Promise.resolve(null),
        budget: store,
        changes: store.changes,
      };
    }
    case 'redis':
    case 'redis-cluster': {
      const redisOptions = {
        ...options,
        access: redisAccess(config.security),
        // A refused login or certificate says which setting to fix.
        onError: (error: Error) => options.onError?.(redisFailure(error, config.security)),
      };
      const store = config.kind === 'redis'
        ? RedisStore.open(config.url, redisOptions)
        : RedisStore.openCluster(config.nodes, redisOptions);
      return {
        store,
        evictionPolicy: () => store.evictionPolicy(),
        memory: () => store.memory(),
        refusalNow: () => store.refusalNow(),
        budget: null,
        changes: store.changes,
      };
    }
    case 'upstash': {
      // Nothing to connect: each call is its own HTTP request, answered or not.
      queueMicrotask(() => options.onReady?.());
      return {
        store: new UpstashStore({ url: config.url, token: config.token.reveal() }),
        evictionPolicy: () => Promise.resolve(null),
        memory: () => Promise.resolve(null),
        refusalNow: () => Promise.resolve(null),
        budget: null,
        changes: null,
      };
    }
  }
}

/** The store's {@link RedisAccess} of the configured security: where the secrets are handed over. */
export function redisAccess(security: RedisSecurity): RedisAccess {
  const { tls, username, password } = security;
  return {
    ...(username === null ? {} : { username }),
    ...(password === null ? {} : { password: password.reveal() }),
    ...(tls === null ? {} : {
      tls: {
        ...(tls.ca === null ? {} : { ca: tls.ca }),
        ...(tls.cert === null ? {} : { cert: tls.cert }),
        ...(tls.key === null ? {} : { key: tls.key.reveal() }),
      },
    }),
  };
}
