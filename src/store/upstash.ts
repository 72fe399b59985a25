/**
 * The store over the Upstash REST protocol (`@upstash/redis`), for serverless and edge
 * deployments where a TCP connection per request is not an option. Same scripts, same keys and
 * same contract as {@link ./redis.ts} on one Redis.
 *
 * @example
 * ```ts
 * const store = new UpstashStore({ url: 'http://127.0.0.1:8079', token: 'dev-token' });
 * ```
 *
 * @module
 */
import { Redis } from '@upstash/redis';
import type { RollupStore, ScoredMember, ScoreRange } from './port.ts';
import { argumentsText } from './member-text.ts';
import { pairsOf, scoreBound } from './score-bound.ts';
import { ScriptedOperations } from './scripted.ts';
import type { LuaScript } from './lua-script.ts';

const UTF8 = new TextEncoder();

/** Where the REST endpoint is and the token it wants. */
export interface UpstashStoreOptions {
  readonly url: string;
  readonly token: string;
}

/** A {@link RollupStore} on Redis over the Upstash REST protocol. */
export class UpstashStore extends ScriptedOperations implements RollupStore {
  readonly #redis: Redis;

  constructor(options: UpstashStoreOptions) {
    // Values are our own serialized states: hand them back as text, never JSON-decoded.
    const redis = new Redis({
      url: options.url,
      token: options.token,
      automaticDeserialization: false,
      enableTelemetry: false,
    });
    // One runner per script: it sends EVALSHA and loads the script when Redis does not know it.
    const scripts = new Map<LuaScript, Pick<ReturnType<Redis['createScript']>, 'exec'>>();
    super((script, call) => {
      let runner = scripts.get(script);
      if (runner === undefined) {
        // A script that only reads goes as EVALSHA_RO: Redis runs it while writes are paused.
        runner = script.readOnly
          ? redis.createScript(script.source, { readonly: true })
          : redis.createScript(script.source);
        scripts.set(script, runner);
      }
      return runner.exec(call.keys, argumentsText(call.args));
    }, { clustered: false });
    this.#redis = redis;
  }

  async readOffset(key: string): Promise<number | null> {
    const value = await this.#redis.get<string>(key);
    return value === null || value === undefined ? null : Number(value);
  }

  async rangeByScore(key: string, range: ScoreRange): Promise<Uint8Array[]> {
    const max = scoreBound(range.max);
    const min = scoreBound(range.minExclusive, true);
    const members = await this.#redis.zrange<string[]>(key, max, min, {
      byScore: true,
      rev: true,
      offset: 0,
      count: range.limit,
    });
    // The REST API answers JSON text: the members arrive decoded.
    return members.map((member) => UTF8.encode(member));
  }

  async membersSince(key: string, minScore: number): Promise<ScoredMember[]> {
    const reply = await this.#redis.zrange<(string | number)[]>(
      key,
      scoreBound(minScore),
      '+inf',
      { byScore: true, withScores: true },
    );
    return pairsOf(reply.map(String));
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
