/**
 * The command line of `npm run bench:api` and the Redis it loads.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { FlagError } from '../../tool-args.ts';

/** What `npm run bench:api -- ...` asked for. */
export interface Flags {
  /** Keep only the workloads whose label contains this text (empty: all). */
  only: string;
  /** Where each API process writes its CPU profile (`node --cpu-prof`); empty: none. */
  profile: string;
  /** Also drive each API and the ceiling with Debian's `wrk` (`./wrk.ts`). */
  wrk: boolean;
  /**
   * Also drive the same bytes through a Hono app of one route, without and with as many
   * pass-through middlewares as the API runs (`./fixed-bytes.ts`): the framework's own floor.
   */
  framework: boolean;
  /** The API's node flags; null: `npm run api`'s heap flags (service/heap-flags.ts). */
  apiNodeFlags: string[] | null;
  events: number;
  seconds: number;
  rate: number;
  connections: number;
  baselineCalls: number;
  baselineSeconds: number;
}

/** Reads the flags; a bad one is a {@link FlagError} naming every flag. */
export function flags(args: readonly string[]): Flags {
  const result: Flags = {
    only: '',
    profile: '',
    wrk: false,
    framework: false,
    apiNodeFlags: null,
    events: 1_000_000,
    seconds: 10,
    rate: 3_000,
    connections: 64,
    baselineCalls: 20,
    baselineSeconds: 20,
  };
  const names: Record<
    string,
    Exclude<keyof Flags, 'only' | 'profile' | 'wrk' | 'framework' | 'apiNodeFlags'>
  > = {
    '--events': 'events',
    '--seconds': 'seconds',
    '--rate': 'rate',
    '--connections': 'connections',
    '--baseline-calls': 'baselineCalls',
    '--baseline-seconds': 'baselineSeconds',
  };
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === '--wrk' || args[i] === '--framework') {
      result[args[i] === '--wrk' ? 'wrk' : 'framework'] = true;
      i -= 1;
      continue;
    }
    if (args[i] === '--api-node-flags') {
      result.apiNodeFlags = (args[i + 1] ?? '').split(' ').filter((flag) => flag !== '');
      continue;
    }
    if (args[i] === '--only' || args[i] === '--profile') {
      result[args[i] === '--only' ? 'only' : 'profile'] = args[i + 1] ?? '';
      continue;
    }
    const name = names[args[i] ?? ''];
    const value = Number(args[i + 1]);
    if (name === undefined || !Number.isInteger(value) || value < 1) {
      throw new FlagError(
        `bad argument ${args[i]} ${args[i + 1]}: use --events, --seconds, --rate, --connections, ` +
          '--baseline-calls, --baseline-seconds, each with a positive integer, --only TEXT, ' +
          "--profile DIR, --api-node-flags \"FLAGS\" ('' for V8's defaults), --wrk or --framework",
      );
    }
    result[name] = value;
  }
  return result;
}

/** The Redis to load: REDIS_URL or `.services/env`'s, database BENCH_REDIS_DB (14). */
export function redisUrl(): string {
  let url = process.env.REDIS_URL;
  if (url === undefined) {
    try {
      url = /^REDIS_URL=(\S+)$/m.exec(readFileSync('.services/env', 'utf8'))?.[1];
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    }
  }
  if (url === undefined) {
    throw new Error('bench:api needs Redis: set REDIS_URL or run npm run services:up');
  }
  const parsed = new URL(url);
  parsed.pathname = `/${process.env.BENCH_REDIS_DB ?? '14'}`;
  return parsed.toString();
}
