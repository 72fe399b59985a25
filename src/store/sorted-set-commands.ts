/**
 * The plain Redis commands of one sorted-set write outside a commit (a ring buffer's new entries,
 * the host registry): `ZADD` (`GT` in max mode), then its trims and its expiry. Sent together on
 * the key's connection by `RedisStore.updateSortedSet`, instead of a script: a script's arguments
 * are each copied into a Lua string and again into Redis by `redis.call`, which for ~1 KB
 * ring-buffer entries cost Redis more than the `ZADD` itself (docs/benchmarks-history.md, "CPU
 * per event and per request, second pass").
 *
 * @example
 * ```ts
 * sortedSetCommands({
 *   key: 'rollup:{p}:logs', members: [{ score: 5, member: 'm' }], mode: 'add',
 *   keepHighest: 10_000, dropBelow: 1, expireAtMs: null,
 * });
 * // [['ZADD', 'rollup:{p}:logs', '5', 'm'], ['ZREMRANGEBYSCORE', 'rollup:{p}:logs', '-inf', '(1'],
 * //  ['ZREMRANGEBYRANK', 'rollup:{p}:logs', '0', '-10001']]
 * ```
 *
 * @module
 */
import type { SortedSetWrite } from './port.ts';

/** The commands of `write`, in the order they must run. */
export function sortedSetCommands(write: SortedSetWrite): (string | Uint8Array)[][] {
  const { key } = write;
  const commands: (string | Uint8Array)[][] = [];
  if (write.members.length > 0) {
    const add: (string | Uint8Array)[] = write.mode === 'max' ? ['ZADD', key, 'GT'] : ['ZADD', key];
    for (const { score, member } of write.members) add.push(String(score), member);
    commands.push(add);
  }
  if (write.dropBelow !== null) {
    commands.push(['ZREMRANGEBYSCORE', key, '-inf', `(${write.dropBelow}`]);
  }
  if (write.keepHighest !== null) {
    commands.push(['ZREMRANGEBYRANK', key, '0', String(-(write.keepHighest + 1))]);
  }
  if (write.expireAtMs !== null) commands.push(['PEXPIREAT', key, String(write.expireAtMs)]);
  return commands;
}
