/**
 * The store over Redis's TCP protocol (node-redis v5): the default, and the one load-tested.
 * Commands fail fast while the connection is down (no offline queue), so the API can answer
 * 503 and a consumer can retry, instead of waiting on a queue that may never drain.
 *
 * @example
 * ```ts
 * const store = await RedisStore.connect('redis://127.0.0.1:6379');
 * await store.ping();
 * ```
 *
 * @module
 */
import { createClient } from 'redis';
import { COMMIT_SCRIPT, commitScriptArguments } from './commit-script.ts';
import type { Commit, RollupStore, ScoreRange } from './port.ts';
import { scoreBound } from './score-bound.ts';
import { scriptSha1 } from './script-sha.ts';

/** Keys per MGET, so one huge read does not block Redis for long. */
const MGET_CHUNK = 512;

type Client = ReturnType<typeof createClient>;

/** Options of {@link RedisStore.connect}. */
export interface RedisStoreOptions {
  /** Called with connection errors (node-redis reconnects by itself). Default: ignore. */
  readonly onError?: (error: Error) => void;
}

/** A {@link RollupStore} on Redis over TCP. */
export class RedisStore implements RollupStore {
  readonly #client: Client;
  readonly #commitSha = scriptSha1(COMMIT_SCRIPT);

  private constructor(client: Client) {
    this.#client = client;
  }

  /** Connects to `url` (`redis://host:port[/db]`); rejects when Redis does not answer. */
  static async connect(url: string, options: RedisStoreOptions = {}): Promise<RedisStore> {
    const client = createClient({
      url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: 5_000,
        reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2_000),
      },
    });
    client.on('error', (error: Error) => options.onError?.(error));
    await client.connect();
    return new RedisStore(client);
  }

  async commit(commit: Commit): Promise<boolean> {
    const { keys, args } = commitScriptArguments(commit);
    const tail = [String(keys.length), ...keys, ...args];
    let reply: unknown;
    try {
      reply = await this.#client.sendCommand(['EVALSHA', this.#commitSha, ...tail]);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      reply = await this.#client.sendCommand(['EVAL', COMMIT_SCRIPT, ...tail]);
    }
    return reply === 1;
  }

  async readOffset(key: string, stream: string): Promise<number | null> {
    const value = await this.#client.hGet(key, stream);
    return value === null || value === undefined ? null : Number(value);
  }

  async getValues(keys: readonly string[]): Promise<(string | null)[]> {
    const out: (string | null)[] = [];
    for (let i = 0; i < keys.length; i += MGET_CHUNK) {
      const chunk = keys.slice(i, i + MGET_CHUNK);
      if (chunk.length > 0) out.push(...(await this.#client.mGet(chunk)));
    }
    return out;
  }

  rangeByScore(key: string, range: ScoreRange): Promise<string[]> {
    return this.#client.sendCommand<string[]>([
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
  }

  membersSince(key: string, minScore: number): Promise<string[]> {
    return this.#client.sendCommand<string[]>([
      'ZRANGE',
      key,
      String(scoreBound(minScore)),
      '+inf',
      'BYSCORE',
    ]);
  }

  async ping(): Promise<void> {
    await this.#client.ping();
  }

  async close(): Promise<void> {
    if (this.#client.isOpen) await this.#client.close();
  }
}
