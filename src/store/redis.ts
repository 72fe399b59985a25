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
import {
  fullestMemory,
  refusalInInfos,
  type StoreMemory,
  type WriteRefusal,
  writeRefusalOf,
} from './write-refusal.ts';
import { type RedisArgument, redisArgument, runScript } from './redis-script-call.ts';
import { Buffer } from 'node:buffer';
import { createClient, createCluster } from 'redis';
import { isStoreAway } from './away.ts';
import type { ChangeFeed } from './changes.ts';
import { duplicateSubscribers, RedisChanges, type SubscriberSource } from './redis-changes.ts';
import { ClusterRefresh } from './cluster-refresh.ts';
import type { RollupStore, ScoredMember, ScoreRange, SortedSetWrite } from './port.ts';
import { BYTES_TYPE_MAPPING, clientTransaction, clusterTransaction } from './redis-transaction.ts';
import { pairsOf, scoreBound } from './score-bound.ts';
import { ScriptedOperations, type TransactionRunner } from './scripted.ts';
import { sortedSetCommands } from './sorted-set-commands.ts';

/**
 * How a connection logs in and whether it is encrypted: for one Redis, and for every node of a
 * cluster, also those discovered later (after a failover, a resharding).
 */
export interface RedisAccess {
  /** ACL user; without it, Redis's `default` user. */
  readonly username?: string;
  readonly password?: string;
  /**
   * TLS with these PEM files (each optional). One Redis takes TLS from its URL (`rediss://`);
   * given here, a cluster's nodes are reached over TLS.
   */
  readonly tls?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
}

/** Options of {@link RedisStore.connect}, {@link RedisStore.open} and their cluster forms. */
export interface RedisStoreOptions {
  /** Login and TLS; default: plaintext as Redis's `default` user (or the URL's user). */
  readonly access?: RedisAccess;
  /** Called with connection errors (the store reconnects by itself). Default: ignore. */
  readonly onError?: (error: Error) => void;
  /** Called whenever the connection is (re)established. Default: ignore. */
  readonly onReady?: () => void;
  /** The clock, in Unix ms (a Cluster's slot-map refreshes are spaced by it). Default: `Date.now`. */
  readonly nowMs?: () => number;
}

/** How a command reaches Redis: one client, or the cluster node owning `firstKey`'s slot. */
interface Connection {
  /** Whether keys of different hash slots must go in different calls. */
  readonly clustered: boolean;
  /**
   * Sends a command; with `asBytes`, its reply's strings arrive as Buffers, not decoded. `args`
   * is handed over, not copied (a commit's may hold thousands of arguments): the caller builds it
   * for this call and does not touch it again.
   */
  send(firstKey: string | undefined, args: RedisArgument[], asBytes?: boolean): Promise<unknown>;
  /** Runs commands on `firstKey`'s node as one MULTI/EXEC ({@link TransactionRunner}). */
  transaction: TransactionRunner;
  ping(): Promise<void>;
  /** `CONFIG GET name` of the server, or of every master of a cluster. */
  configGet(name: string): Promise<string[]>;
  /** `INFO section` of the server, or of every master of a cluster, as text. */
  info(section: string): Promise<string[]>;
  /** Where the store's change feed subscribes (src/store/redis-changes.ts). */
  readonly subscribers: SubscriberSource;
  close(): Promise<void>;
}

const SOCKET = {
  connectTimeout: 5_000,
  reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
};

/** The client options of `access`, on a fresh socket object (node-redis writes into it). */
function accessOptions(access: RedisAccess | undefined, clusterTls: boolean) {
  const tls = access?.tls;
  return {
    ...(access?.username === undefined ? {} : { username: access.username }),
    ...(access?.password === undefined ? {} : { password: access.password }),
    socket: {
      ...SOCKET,
      ...(clusterTls && tls !== undefined ? { tls: true as const } : {}),
      ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls?.cert === undefined ? {} : { cert: tls.cert }),
      ...(tls?.key === undefined ? {} : { key: tls.key }),
    },
  };
}

/** Command options under which a reply's strings arrive as Buffers. */
const AS_BYTES = { typeMapping: BYTES_TYPE_MAPPING };

/** Pause between two attempts to reach a Redis Cluster that answered none of them, in ms. */
const CLUSTER_RETRY_MS = 2_000;

type Client = ReturnType<typeof createClient>;
type Cluster = ReturnType<typeof createCluster>;

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** A connection through `client`, which node-redis reconnects by itself. */
function clientConnection(client: Client): Connection {
  return {
    clustered: false,
    send: (_firstKey, args, asBytes) =>
      client.sendCommand(args, asBytes === true ? AS_BYTES : undefined),
    transaction: clientTransaction(client),
    ping: async () => {
      await client.ping();
    },
    configGet: async (name) => [configValue(await client.sendCommand(['CONFIG', 'GET', name]))],
    info: async (section) => [String(await client.sendCommand(['INFO', section]))],
    subscribers: duplicateSubscribers(() => client.duplicate()),
    close: async () => {
      if (!client.isOpen) return;
      // A client still trying to reach its server has nothing to finish: drop it.
      if (client.isReady) await client.close();
      else client.destroy();
    },
  };
}

/**
 * A connection through whichever cluster client `current()` returns; until there is one, every
 * command fails at once (as node-redis does while a connection is down).
 */
function clusterConnection(
  current: () => Cluster | null,
  close: () => Promise<void>,
  refresh: ClusterRefresh,
): Connection {
  const connected = (): Cluster => {
    const cluster = current();
    if (cluster === null) throw new Error('the Redis Cluster has not been reached yet');
    return cluster;
  };
  return {
    clustered: true,
    send: async (firstKey, args, asBytes) => {
      const cluster = connected();
      try {
        return await cluster.sendCommand(
          firstKey,
          false,
          args,
          asBytes === true ? AS_BYTES : undefined,
        );
      } catch (caught) {
        const error = clusterMapHole(caught);
        // Its node may have died and its replica been promoted: no reply will say so.
        if (isStoreAway(error)) refresh.nodeAway(cluster);
        throw error;
      }
    },
    transaction: clusterTransaction(connected),
    ping: async () => {
      const cluster = connected();
      await Promise.all(
        cluster.masters.map(async (master) => await (await cluster.nodeClient(master)).ping()),
      );
    },
    configGet: async (name) => {
      const cluster = connected();
      return await Promise.all(cluster.masters.map(async (master) => {
        const client = await cluster.nodeClient(master);
        return configValue(await client.sendCommand(['CONFIG', 'GET', name]));
      }));
    },
    info: async (section) => {
      const cluster = connected();
      return await Promise.all(cluster.masters.map(async (master) => {
        const client = await cluster.nodeClient(master);
        return String(await client.sendCommand(['INFO', section]));
      }));
    },
    // node-redis keeps a subscribed connection per node of a watched slot, and resubscribes.
    subscribers: {
      subscriber: () => Promise.resolve(connected()),
      onReconnect: () => undefined,
      close: () => Promise.resolve(),
    },
    close,
  };
}

/**
 * `error` as an error that says the cluster is away when it is one of node-redis's errors for a
 * hole in its map of slots, else `error` itself: a TypeError for a key whose slot has no master in
 * the map (a failover under way, or a slot no master claims: the map was asked for while the
 * cluster had a hole), or `Cannot find node <address>` for an ASK to a master the map does not
 * list (a slot being moved to a node that serves no slot yet: scaling out). Away, the caller waits
 * and retries, and the refresh asks for the map again; either passes once the cluster settles.
 */
function clusterMapHole(error: unknown): unknown {
  if (error instanceof TypeError && /\(reading '(master|replicas)'\)/.test(error.message)) {
    return new Error(
      "CLUSTERDOWN the Redis Cluster client knows no master for this key's slot (a failover " +
        'under way, or a slot no master serves): retried once the cluster serves it',
      { cause: error },
    );
  }
  if (error instanceof Error && /^Cannot find node \S+$/.test(error.message)) {
    return new Error(
      `CLUSTERDOWN this key's slot is moving to a node the Redis Cluster client does not know ` +
        `(${error.message.slice('Cannot find node '.length)}, a master without slots yet): ` +
        'retried once the move is done',
      { cause: error },
    );
  }
  return error;
}

/** The value of a `CONFIG GET` reply (`[name, value]` in RESP2, `{ name: value }` in RESP3). */
function configValue(reply: unknown): string {
  if (Array.isArray(reply) && typeof reply[1] === 'string') return reply[1];
  if (reply !== null && typeof reply === 'object') {
    const value: unknown = Object.values(reply)[0];
    if (typeof value === 'string') return value;
  }
  throw new Error(`CONFIG GET answered ${JSON.stringify(reply)}`);
}

/** A {@link RollupStore} on Redis over TCP. */
export class RedisStore extends ScriptedOperations implements RollupStore {
  readonly #connection: Connection;
  /** What its commits signal (src/store/changes.ts). */
  readonly changes: ChangeFeed;

  private constructor(connection: Connection) {
    super((script, call, asBytes) => runScript(connection, script, call, asBytes), {
      clustered: connection.clustered,
      transact: connection.transaction,
    });
    this.#connection = connection;
    this.changes = new RedisChanges(connection.subscribers);
  }

  /** Connects to one Redis at `url` (`redis://host:port[/db]`); waits as long as it takes. */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const client = RedisStore.#client(url, options);
    await client.connect();
    return new RedisStore(clientConnection(client));
  }

  /**
   * The store on one Redis at `url`, returned at once and connected in the background: until
   * Redis answers, every call fails at once (and `onReady` says when it answers). For a process
   * that must run, and say it is not ready, while its Redis is away.
   */
  static open(url: string, options: RedisStoreOptions = {}): RedisStore {
    const client = RedisStore.#client(url, options);
    client.connect().catch((error: unknown) => options.onError?.(asError(error)));
    return new RedisStore(clientConnection(client));
  }

  static #client(url: string, options: RedisStoreOptions): Client {
    const client = createClient({
      url,
      disableOfflineQueue: true,
      ...accessOptions(options.access, false),
    });
    client.on('error', (error: Error) => options.onError?.(error));
    client.on('ready', () => options.onReady?.());
    return client;
  }

  /**
   * Connects to the Redis Cluster reachable at `nodes` (`host:port` of any of its nodes);
   * rejects when none answers.
   */
  static async connectCluster(
    nodes: readonly string[],
    options: RedisStoreOptions = {},
  ): Promise<RedisStore> {
    const cluster = RedisStore.#cluster(nodes, options);
    await cluster.connect();
    return new RedisStore(
      clusterConnection(() => cluster, () => closeCluster(cluster), RedisStore.#refresh(options)),
    );
  }

  /**
   * The store on the Redis Cluster at `nodes`, returned at once: its nodes are asked every 2 s
   * until one answers, and every call fails at once until then.
   */
  static openCluster(nodes: readonly string[], options: RedisStoreOptions = {}): RedisStore {
    let current: Cluster | null = null;
    let closed = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const attempt = () => {
      const cluster = RedisStore.#cluster(nodes, options);
      cluster.connect().then(
        () => {
          if (closed) void closeCluster(cluster);
          else {
            current = cluster;
            options.onReady?.();
          }
        },
        (error: unknown) => {
          options.onError?.(asError(error));
          cluster.destroy();
          if (!closed) retry = setTimeout(attempt, CLUSTER_RETRY_MS);
        },
      );
    };
    attempt();
    return new RedisStore(clusterConnection(() => current, async () => {
      closed = true;
      clearTimeout(retry);
      if (current !== null) await closeCluster(current);
    }, RedisStore.#refresh(options)));
  }

  static #refresh(options: RedisStoreOptions): ClusterRefresh {
    return new ClusterRefresh({
      ...(options.onError === undefined ? {} : { onError: options.onError }),
      ...(options.nowMs === undefined ? {} : { nowMs: options.nowMs }),
    });
  }

  static #cluster(nodes: readonly string[], options: RedisStoreOptions): Cluster {
    const scheme = options.access?.tls === undefined ? 'redis' : 'rediss';
    // The defaults are every node's options: those discovered later log in and encrypt alike.
    const cluster = createCluster({
      rootNodes: nodes.map((node) => ({ url: `${scheme}://${node}` })),
      defaults: { disableOfflineQueue: true, ...accessOptions(options.access, true) },
    });
    cluster.on('error', (error: Error) => options.onError?.(error));
    return cluster;
  }

  /**
   * One sorted-set write as the plain commands of {@link sortedSetCommands}, sent together on the
   * key's connection (so Redis runs them in order). Not atomic, and need not be: every write here
   * is idempotent, and a reader meanwhile sees at most entries that the trims remove next.
   */
  override async updateSortedSet(write: SortedSetWrite): Promise<void> {
    await Promise.all(
      sortedSetCommands(write).map((command) =>
        this.#connection.send(write.key, command.map(redisArgument))
      ),
    );
  }

  async readOffset(key: string): Promise<number | null> {
    const value = await this.#connection.send(key, ['GET', key]);
    return typeof value === 'string' ? Number(value) : null;
  }

  async rangeByScore(key: string, range: ScoreRange): Promise<Uint8Array[]> {
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
    ], true);
    return reply as Buffer[];
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

  /**
   * The `maxmemory-policy` of the server (of every master of a cluster, the first that is not
   * `noeviction` if any is not), or null when CONFIG is refused (a managed Redis may rename it).
   */
  async evictionPolicy(): Promise<string | null> {
    try {
      const reply = await this.#connection.configGet('maxmemory-policy');
      return reply.find((policy) => policy !== 'noeviction') ?? reply[0] ?? null;
    } catch (error) {
      if (
        error instanceof Error && /^(ERR unknown command|NOPERM|ERR .*CONFIG)/i.test(error.message)
      ) return null;
      throw error;
    }
  }

  /** How full the server is (`INFO memory`; of a cluster, the fullest master), or null. */
  memory(): Promise<StoreMemory | null> {
    return this.#connection.info('memory').then(fullestMemory, () => null);
  }

  /** Why the server would refuse writes now, as its `INFO` says (src/store/write-refusal.ts). */
  refusalNow(): Promise<WriteRefusal | null> {
    return this.#connection.info('default').then(
      refusalInInfos,
      (error: unknown) => writeRefusalOf(error) === 'busy' ? 'busy' : null,
    );
  }

  ping(): Promise<void> {
    return this.#connection.ping();
  }

  async close(): Promise<void> {
    await this.changes.close();
    await this.#connection.close();
  }
}

async function closeCluster(cluster: Cluster): Promise<void> {
  if (cluster.isOpen) await cluster.close();
}
