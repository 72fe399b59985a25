/**
 * The Redis servers a benchmark measures, one Redis or every master of a Redis Cluster, each
 * through its own plain client: emptied before a run, and read for CPU seconds, used memory
 * and keys one server at a time, so a cluster's figures can be printed per shard and summed.
 *
 * @example
 * ```ts
 * const nodes = await RedisNodes.connect('redis-cluster', env);
 * const cpu = await nodes.cpuSeconds(); // one figure per master
 * ```
 *
 * @module
 */
import { createClient } from 'redis';
import { REDIS_URL } from '../services/redis.ts';

type Client = ReturnType<typeof createClient>;

/** Which Redis a benchmark runs on: the one of REDIS_URL, or the cluster of REDIS_CLUSTER_NODES. */
export type BenchStore = 'redis' | 'redis-cluster';

/** The environment variables that address the services of `npm run services:up`. */
export interface RedisAddresses {
  readonly REDIS_URL?: string;
  readonly REDIS_CLUSTER_NODES?: string;
}

/** One Redis server or every master of a cluster. */
/** One command's cost per event (see {@link RedisNodes.commandsPerEvent}). */
export interface CommandPerEvent {
  readonly command: string;
  readonly usPerEvent: number;
  readonly callsPerEvent: number;
}

/** `stats` as one line: each command's µs per event and, in brackets, its calls per event. */
export function commandsLine(stats: readonly CommandPerEvent[]): string {
  return stats.map((stat) => `${stat.command} ${stat.usPerEvent} µs (${stat.callsPerEvent})`)
    .join(', ');
}

export class RedisNodes {
  /** `host:port` of each server, in the order of every per-node figure. */
  readonly names: readonly string[];
  private readonly clients: readonly Client[];

  private constructor(names: readonly string[], clients: readonly Client[]) {
    this.names = names;
    this.clients = clients;
  }

  /** Connects to the server of REDIS_URL, or to every master among REDIS_CLUSTER_NODES. */
  static async connect(store: BenchStore, env: RedisAddresses): Promise<RedisNodes> {
    if (store === 'redis') {
      const url = env.REDIS_URL ?? REDIS_URL;
      const client = await createClient({ url }).connect();
      return new RedisNodes([new URL(url).host], [client]);
    }
    const seeds = (env.REDIS_CLUSTER_NODES ?? '').split(',').filter((node) => node !== '');
    if (seeds.length === 0) {
      throw new Error('--store redis-cluster needs REDIS_CLUSTER_NODES (npm run services:up)');
    }
    // Every master, as the cluster itself lists them (the seeds may be a subset, or replicas).
    const seed = await createClient({ url: `redis://${seeds[0]}` }).connect();
    const masters = String(await seed.sendCommand(['CLUSTER', 'NODES']))
      .split('\n')
      .map((line) => line.split(' '))
      .filter((fields) => fields[2]?.split(',').includes('master'))
      .map((fields) => (fields[1] ?? '').split('@')[0] ?? '');
    await seed.close();
    const clients = await Promise.all(
      masters.map((node) => createClient({ url: `redis://${node}` }).connect()),
    );
    return new RedisNodes(masters, clients);
  }

  /** Deletes every key of every server. */
  async flush(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.flushAll()));
  }

  /** CPU seconds (user + system) each server has used since it started, from INFO cpu. */
  async cpuSeconds(): Promise<number[]> {
    const fields = await this.#infoFields('cpu', ['used_cpu_user', 'used_cpu_sys']);
    return fields.map(([user = 0, sys = 0]) => user + sys);
  }

  /** Bytes each server's data set uses, from INFO memory. */
  async usedMemory(): Promise<number[]> {
    return (await this.#infoFields('memory', ['used_memory'])).map(([bytes = 0]) => bytes);
  }

  /** Bytes each server has read from its clients since it started or the last {@link resetStats}. */
  async netInputBytes(): Promise<number[]> {
    const fields = await this.#infoFields('stats', ['total_net_input_bytes']);
    return fields.map(([bytes = 0]) => bytes);
  }

  /** The numeric fields `names` of INFO `section`, per server (0 where a field is missing). */
  #infoFields(section: string, names: readonly string[]): Promise<number[][]> {
    return Promise.all(this.clients.map(async (client) => {
      const info = await client.info(section);
      return names.map((name) =>
        Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0)
      );
    }));
  }

  /** Zeroes every server's statistics (CONFIG RESETSTAT), so {@link commandStats} counts from now. */
  async resetStats(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.configResetStat()));
  }

  /**
   * Microseconds each command (and each command a script ran) has taken since the last
   * {@link resetStats}, summed over the servers, from INFO commandstats; most costly first.
   */
  async commandStats(): Promise<{ command: string; calls: number; usec: number }[]> {
    const totals = new Map<string, { calls: number; usec: number }>();
    for (const client of this.clients) {
      const info = await client.info('commandstats');
      for (const match of info.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) {
        const [, command = '', calls = '0', usec = '0'] = match;
        const total = totals.get(command) ?? { calls: 0, usec: 0 };
        total.calls += Number(calls);
        total.usec += Number(usec);
        totals.set(command, total);
      }
    }
    return [...totals].map(([command, total]) => ({ command, ...total }))
      .sort((a, b) => b.usec - a.usec);
  }

  /**
   * The `top` most costly commands of {@link commandStats} per event of `events`: µs and calls.
   * A script's commands are counted both in `EVALSHA` and under their own names; neither counts
   * reading requests and writing replies.
   */
  async commandsPerEvent(events: number, top: number): Promise<CommandPerEvent[]> {
    return (await this.commandStats()).slice(0, top).map((stat) => ({
      command: stat.command,
      usPerEvent: Number((stat.usec / events).toFixed(2)),
      callsPerEvent: Number((stat.calls / events).toFixed(3)),
    }));
  }

  /** Every key matching `pattern` on every server, with its MEMORY USAGE in bytes. */
  async *keyUsages(pattern: string): AsyncGenerator<readonly [key: string, bytes: number]> {
    for (const client of this.clients) {
      for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
        // node-redis pipelines the concurrent commands of one batch.
        const usages = await Promise.all(keys.map((key) => client.memoryUsage(key)));
        for (const [i, key] of keys.entries()) yield [key, usages[i] ?? 0];
      }
    }
  }

  /** Closes every client. */
  async close(): Promise<void> {
    await Promise.all(this.clients.map((client) => client.close()));
  }
}
