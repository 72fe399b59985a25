import { describe, expect, test } from 'vitest';
import {
  bucketExpiryMs,
  EXPIRY_SLACK_US,
  functionScope,
  hostMember,
  hostScope,
  invocationKey,
  parseHostMember,
  projectPrefix,
  quarantineKey,
  recentLogsKey,
  usageKey,
} from '../../src/rollup/keys.ts';

/** The Redis Cluster hash tag of a key: the text between the first `{` and the next `}`. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  return key.slice(open + 1, key.indexOf('}', open + 1));
}

describe('key layout', () => {
  test('every key of a project carries the project as its hash tag', () => {
    const prefix = projectPrefix('abc');
    const keys = [
      invocationKey(prefix, functionScope(null), 'second', 1_795_256_130_000_000),
      invocationKey(prefix, functionScope('f'), 'day', 1_795_219_200_000_000),
      usageKey(prefix, hostScope('abc.supabase.co'), 'minute', 1_795_256_100_000_000),
      recentLogsKey('abc'),
    ];
    expect(keys).toEqual([
      'rollup:{abc}:inv:*:S:1795256100',
      'rollup:{abc}:inv:ff:d:1795219200',
      'rollup:{abc}:use:abc.supabase.co:m:1795256100',
      'rollup:{abc}:logs',
    ]);
    for (const key of [...keys, quarantineKey(keys[0] ?? '')]) expect(hashTag(key)).toBe('abc');
  });

  test('braces and colons in names cannot break the layout or the hash tag', () => {
    const prefix = projectPrefix('a}b{c:d');
    expect(prefix).toBe('rollup:{a%7Db%7Bc%3Ad}');
    expect(hashTag(prefix)).toBe('a%7Db%7Bc%3Ad');
    expect(functionScope('x:y')).toBe('fx%3Ay');
    expect(hostScope('h:1')).toBe('h%3A1');
    // '*' (all functions) can never collide with a function, whose scope starts with 'f'.
    expect(functionScope('*')).toBe('f*');
  });

  test('a bucket key expires after its end, the horizon and the slack', () => {
    const bucketUs = 1_795_256_100_000_000;
    const horizonUs = 3_600_000_000;
    expect(bucketExpiryMs(bucketUs, 'minute', horizonUs)).toBe(
      (bucketUs + 60_000_000 + horizonUs + EXPIRY_SLACK_US) / 1000,
    );
  });

  test('host members round-trip, and members this version did not write read as null', () => {
    const member = hostMember('p', 'h["x"]');
    expect(parseHostMember(member)).toEqual({ project: 'p', host: 'h["x"]' });
    for (const foreign of ['p|h', '["p"]', '[1,2]', '{"p":"h"}']) {
      expect(parseHostMember(foreign)).toBeNull();
    }
  });
});
