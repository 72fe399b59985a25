/**
 * The store over Redis's TCP protocol (node-redis v5), on one Redis or a Redis Cluster: the
 * default, and the one load-tested. Commands fail fast while a connection is down (no offline
 * queue), so the API can answer 503 and a consumer can retry, instead of waiting on a queue that
 * may never drain. On a Cluster every multi-key call holds the keys of one hash slot: reads are
 * split by the keys' hash tag (one project's keys share one) and sent to their nodes at once.
 *
 * @example
 * ```ts
 * const store = await RedisStore.connect('redis://127.0.0.1:6379');
 * const cluster = await RedisStore.connectCluster(['127.0.0.1:7001', '127.0.0.1:7002']);
 * ```
 *
 * @module
 */
import { createClient, createCluster } from 'redis';
import type { RollupStore, ScoredMember, ScoreRange } from './port.ts';
import { pairsOf, scoreBound } from './score-bound.ts';
import { scriptSha1 } from './script-sha.ts';
import { ScriptedOperations } from './scripted.ts';
import type { ScriptCall } from './scripts.ts';

/** Options of {@link RedisStore.connect} and {@link RedisStore.connectCluster}. */
export interface RedisStoreOptions {
  /** Called with connection errors (node-redis reconnects by itself). Default: ignore. */
  readonly onError?: (error: Error) => void;
}

/** How a command reaches Redis: one client, or the cluster node owning `firstKey`'s slot. */
interface Connection {
  /** Whether keys of different hash slots must go in different calls. */
  readonly clustered: boolean;
  send(firstKey: string | undefined, args: readonly string[]): Promise<unknown>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

const SOCKET = {
  connectTimeout: 5_000,
  reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
};

/** A {@link RollupStore} on Redis over TCP. */
export class RedisStore extends ScriptedOperations implements RollupStore {
  readonly #connection: Connection;

  private constructor(connection: Connection) {
    super((script, call) => runScript(connection, script, call), {
      clustered: connection.clustered,
    });
    this.#connection = connection;
  }

  /** Connects to one Redis at `url` (`redis://host:port[/db]`); rejects when it does not answer. */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const client = createClient({ url, disableOfflineQueue: true, socket: SOCKET });
    client.on('error', (error: Error) => options.onError?.(error));
    await client.connect();
    return new RedisStore({
      clustered: false,
      send: (_firstKey, args) => client.sendCommand([...args]),
      ping: async () => {
        await client.ping();
      },
      close: async () => {
        if (client.isOpen) await client.close();
      },
    });
  }

  /**
   * Connects to the Redis Cluster reachable at `nodes` (`host:port` of any of its nodes);
   * rejects when none answers.
   */
  static async connectCluster(
    nodes: readonly string[],
    options: RedisStoreOptions = {},
  ): Promise<RedisStore> {
    const cluster = createCluster({
      rootNodes: nodes.map((node) => ({ url: `redis://${node}` })),
      defaults: { disableOfflineQueue: true, socket: SOCKET },
    });
    cluster.on('error', (error: Error) => options.onError?.(error));
    await cluster.connect();
    return new RedisStore({
      clustered: true,
      send: (firstKey, args) => cluster.sendCommand(firstKey, false, [...args]),
      ping: async () => {
        await Promise.all(
          cluster.masters.map(async (master) => await (await cluster.nodeClient(master)).ping()),
        );
      },
      close: async () => {
        if (cluster.isOpen) await cluster.close();
      },
    });
  }

  async readOffset(key: string): Promise<number | null> {
    const value = await this.#connection.send(key, ['GET', key]);
    return typeof value === 'string' ? Number(value) : null;
  }

  async rangeByScore(key: string, range: ScoreRange): Promise<string[]> {
    const reply = await this.#connection.send(key, [
      'ZRANGE',
      key,
      String(scoreBound(range.max)),
      String(scoreBound(range.minExclusive, true)),
      'BYSCORE',
      'REV',
      'LIMIT',
      '0',
      String(range.limit),
    ]);
    return reply as string[];
  }

  async membersSince(key: string, minScore: number): Promise<ScoredMember[]> {
    const reply = await this.#connection.send(key, [
      'ZRANGE',
      key,
      String(scoreBound(minScore)),
      '+inf',
      'BYSCORE',
      'WITHSCORES',
    ]);
    return pairsOf(reply as string[]);
  }

  ping(): Promise<void> {
    return this.#connection.ping();
  }

  close(): Promise<void> {
    return this.#connection.close();
  }
}

/** Runs a script by its SHA-1, loading it on the node that does not know it yet. */
async function runScript(
  connection: Connection,
  script: string,
  call: ScriptCall,
): Promise<unknown> {
  const firstKey = call.keys[0];
  const tail = [String(call.keys.length), ...call.keys, ...call.args];
  try {
    return await connection.send(firstKey, ['EVALSHA', scriptSha1(script), ...tail]);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await connection.send(firstKey, ['EVAL', script, ...tail]);
  }
}
