/**
 * The store over the Upstash REST protocol (`@upstash/redis`), for serverless and edge
 * deployments where a TCP connection per request is not an option. Same script, same keys and
 * same contract as {@link ./redis.ts}.
 *
 * @example
 * ```ts
 * const store = new UpstashStore({ url: 'http://127.0.0.1:8079', token: 'dev-token' });
 * ```
 *
 * @module
 */
import { Redis } from '@upstash/redis';
import { COMMIT_SCRIPT, commitScriptArguments } from './commit-script.ts';
import type { Commit, RollupStore, ScoreRange } from './port.ts';
import { scoreBound } from './score-bound.ts';

/** Where the REST endpoint is and the token it wants. */
export interface UpstashStoreOptions {
  readonly url: string;
  readonly token: string;
}

/** Keys per MGET request. */
const MGET_CHUNK = 512;

/** A {@link RollupStore} on Redis over the Upstash REST protocol. */
export class UpstashStore implements RollupStore {
  readonly #redis: Redis;
  readonly #commitScript;

  constructor(options: UpstashStoreOptions) {
    // Values are our own serialized states: hand them back as text, never JSON-decoded.
    this.#redis = new Redis({
      url: options.url,
      token: options.token,
      automaticDeserialization: false,
      enableTelemetry: false,
    });
    this.#commitScript = this.#redis.createScript<number>(COMMIT_SCRIPT);
  }

  async commit(commit: Commit): Promise<boolean> {
    const { keys, args } = commitScriptArguments(commit);
    const reply = await this.#commitScript.exec(keys, args);
    return Number(reply) === 1;
  }

  async readOffset(key: string, stream: string): Promise<number | null> {
    const value = await this.#redis.hget<string>(key, stream);
    return value === null || value === undefined ? null : Number(value);
  }

  async getValues(keys: readonly string[]): Promise<(string | null)[]> {
    const out: (string | null)[] = [];
    for (let i = 0; i < keys.length; i += MGET_CHUNK) {
      const chunk = keys.slice(i, i + MGET_CHUNK);
      if (chunk.length > 0) out.push(...(await this.#redis.mget<(string | null)[]>(...chunk)));
    }
    return out;
  }

  rangeByScore(key: string, range: ScoreRange): Promise<string[]> {
    const max = scoreBound(range.max);
    const min = scoreBound(range.minExclusive, true);
    return this.#redis.zrange<string[]>(key, max, min, {
      byScore: true,
      rev: true,
      offset: 0,
      count: range.limit,
    });
  }

  membersSince(key: string, minScore: number): Promise<string[]> {
    return this.#redis.zrange<string[]>(key, scoreBound(minScore), '+inf', { byScore: true });
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
