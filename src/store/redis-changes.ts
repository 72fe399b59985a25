/**
 * The change feed of a store on Redis (src/store/changes.ts): sharded subscriptions (`SSUBSCRIBE`)
 * to the channels the commit script publishes on. On one Redis they go over a connection of their
 * own (a subscribed connection sends nothing else), made at the first watch; on a Cluster
 * node-redis keeps one per node that owns a watched channel's slot, and follows a slot that moves.
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
