/**
 * The change feed of a store on Redis (src/store/changes.ts): sharded subscriptions (`SSUBSCRIBE`)
 * to the channels the commit script publishes on. On one Redis they go over a connection of their
 * own (a subscribed connection sends nothing else, {@link duplicateSubscribers}), made at the
 * first watch; on a Cluster node-redis keeps one per node that owns a watched channel's slot, and
 * follows a slot that moves.
 * node-redis subscribes again by itself after a reconnect; the signals sent meanwhile are lost,
 * which {@link ChangeFeed.onReconnect} tells.
 *
 * @module
 */
import type { ChangeFeed } from './changes.ts';

/** What a feed subscribes through: a node-redis client or cluster, as both name these. */
export interface ShardedSubscriber {
  sSubscribe(channel: string, listener: () => void): Promise<void>;
  sUnsubscribe(channel: string, listener: () => void): Promise<void>;
}

/** How the feed reaches its subscriber, and learns of its reconnections. */
export interface SubscriberSource {
  /** The subscriber, connected or connecting; rejects while there is none. */
  subscriber(): Promise<ShardedSubscriber>;
  /** Calls `listener` each time a subscribed connection is back after a loss. */
  onReconnect(listener: () => void): void;
  /** Closes what {@link subscriber} opened. */
  close(): Promise<void>;
}

/** A {@link ChangeFeed} over Redis's sharded channels. */
export class RedisChanges implements ChangeFeed {
  readonly #source: SubscriberSource;

  constructor(source: SubscriberSource) {
    this.#source = source;
  }

  async watch(channel: string, listener: () => void): Promise<() => Promise<void>> {
    const subscriber = await this.#source.subscriber();
    // A function of its own per watch: node-redis removes a channel's listener by identity.
    const entry = () => listener();
    await subscriber.sSubscribe(channel, entry);
    return async () => {
      await subscriber.sUnsubscribe(channel, entry);
    };
  }

  onReconnect(listener: () => void): void {
    this.#source.onReconnect(listener);
  }

  close(): Promise<void> {
    return this.#source.close();
  }
}

/** A connection of its own for subscriptions, as node-redis's `client.duplicate()` gives one. */
export interface SubscriberConnection extends ShardedSubscriber {
  on(event: 'error' | 'ready', listener: () => void): unknown;
  connect(): Promise<unknown>;
  destroy(): void;
  readonly isOpen: boolean;
}

/**
 * The subscriptions of one Redis: over a connection of their own (`duplicate()`, made at the
 * first watch), whose returns after a loss are told to {@link SubscriberSource.onReconnect}.
 */
export function duplicateSubscribers(duplicate: () => SubscriberConnection): SubscriberSource {
  let subscriber: Promise<SubscriberConnection> | null = null;
  const reconnects = new Set<() => void>();
  const connect = async (): Promise<SubscriberConnection> => {
    const connection = duplicate();
    // The main connection reports the outages: this one only follows them.
    connection.on('error', () => undefined);
    let readyBefore = false;
    connection.on('ready', () => {
      if (readyBefore) { for (const listener of reconnects) listener(); }
      readyBefore = true;
    });
    try {
      await connection.connect();
    } catch (error) {
      subscriber = null;
      connection.destroy();
      throw error;
    }
    return connection;
  };
  return {
    subscriber: () => (subscriber ??= connect()),
    onReconnect: (listener) => void reconnects.add(listener),
    close: async () => {
      const opened = subscriber;
      subscriber = null;
      if (opened === null) return;
      const connection = await opened.catch(() => null);
      if (connection?.isOpen === true) connection.destroy();
    },
  };
}
