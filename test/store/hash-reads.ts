/**
 * How a Redis store reads hashes (src/store/scripted.ts), checked on one Redis and on a Cluster:
 * in one MULTI/EXEC of plain commands, the script only for what the transaction cannot read (a
 * key of the layout before parts), with the same answers either way. What Redis ran is counted
 * from `INFO commandstats` of every master, so a read that quietly always fell back to the script
 * (as fast as before, and as right) fails here.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { bucketTexts, slotTexts } from '../support/stored-parts.ts';
import { expect, test } from 'vitest';
import type { RedisStore } from '../../src/store/redis.ts';
import type { SlottedPart } from '../../src/store/port.ts';

/** How to reach the store under test and what it runs. */
export interface HashReadsFixture {
  readonly store: () => RedisStore;
  /** A key of the test's own; every key of one test shares one hash tag. */
  readonly key: (name: string) => string;
  /** Sets `key` to a string (the layout before parts) and `hash`'s fields. */
  readonly write: (
    legacy: { key: string; value: string | Buffer },
    hash: { key: string; fields: Record<string, string | Buffer> },
  ) => Promise<void>;
  /** `INFO commandstats` of every master, each as text. */
  readonly commandStats: () => Promise<string[]>;
}

/**
 * The commands a read may run: those the counting itself runs (`INFO`, a cluster client's
 * `CLUSTER SLOTS`) are left out.
 */
const READ_COMMANDS = new Set([
  'multi',
  'exec',
  'hgetall',
  'hvals',
  'get',
  'evalsha_ro',
  'eval_ro',
]);

/** Calls of each command so far, summed over `stats` (`cmdstat_exec:calls=3,...`). */
function callsOf(stats: readonly string[]): Map<string, number> {
  const calls = new Map<string, number>();
  for (const text of stats) {
    for (const [, name, count] of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      calls.set(name as string, (calls.get(name as string) ?? 0) + Number(count));
    }
  }
  return calls;
}

/** Registers the tests of how `fixture`'s store reads hashes. */
export function hashReads(fixture: HashReadsFixture): void {
  /** The commands Redis ran for `read`, by name, with how many times. */
  const ranFor = async (read: () => Promise<unknown>): Promise<Record<string, number>> => {
    const before = callsOf(await fixture.commandStats());
    await read();
    const after = callsOf(await fixture.commandStats());
    const ran: Record<string, number> = {};
    for (const [name, calls] of after) {
      const more = calls - (before.get(name) ?? 0);
      if (more > 0 && READ_COMMANDS.has(name)) ran[name] = more;
    }
    return ran;
  };

  test('hashes are read in one transaction of plain commands, no script', async () => {
    const store = fixture.store();
    const [hash, none] = [fixture.key('hash'), fixture.key('none')];
    await fixture.write({ key: fixture.key('unused'), value: 'x' }, {
      key: hash,
      fields: { 't/0': '{"n":12345}', '3 t/0': 'aé€x' },
    });
    let slots: unknown;
    const ranSlots = await ranFor(async () => {
      slots = await store.readSlots([{ key: hash, headBytes: 4 }, { key: none }, { key: hash }]);
    });
    expect(slots).toEqual([
      [{ slot: null, part: Buffer.from('{"n"') }, {
        slot: '3',
        part: Buffer.from('aé€').subarray(0, 4),
      }],
      [],
      [
        { slot: null, part: Buffer.from('{"n":12345}') },
        { slot: '3', part: Buffer.from('aé€x') },
      ],
    ]);
    expect(ranSlots).toEqual({ multi: 1, hgetall: 3, exec: 1 });
    let buckets: unknown;
    const ranBuckets = await ranFor(async () => {
      buckets = await store.readBuckets([none, hash]);
    });
    expect(buckets).toEqual([[], [Buffer.from('{"n":12345}'), Buffer.from('aé€x')]]);
    expect(ranBuckets).toEqual({ multi: 1, hvals: 2, exec: 1 });
  });

  test('a key of the layout before parts is read by the script, with the rest of its call', async () => {
    const store = fixture.store();
    const [old, hash, none] = [fixture.key('old'), fixture.key('new'), fixture.key('gone')];
    await fixture.write({ key: old, value: 'whole state' }, {
      key: hash,
      fields: { 't/0': 'part 0', '7 t/1': 'second 7' },
    });
    let slots: unknown;
    const ran = await ranFor(async () => {
      slots = await store.readSlots([{ key: old, headBytes: 5 }, { key: hash }, { key: none }]);
    });
    expect(slots).toEqual([
      [{ slot: null, part: Buffer.from('whole') }],
      [{ slot: null, part: Buffer.from('part 0') }, { slot: '7', part: Buffer.from('second 7') }],
      [],
    ]);
    // The transaction met WRONGTYPE; the script (EVALSHA_RO) read the three keys again.
    expect(ran).toMatchObject({ multi: 1, exec: 1, evalsha_ro: 1 });
    expect(bucketTexts(await store.readBuckets([hash, old]))).toEqual([['part 0', 'second 7'], [
      'whole state',
    ]]);
  });

  test('parts come back byte for byte, by the transaction and by the script', async () => {
    const store = fixture.store();
    const [old, hash] = [fixture.key('raw old'), fixture.key('raw new')];
    // Not UTF-8: a part decoded as text on the way would come back otherwise.
    const raw = Buffer.from([0x11, 0x80, 0xff, 0x41]);
    await fixture.write({ key: old, value: raw }, {
      key: hash,
      fields: { 't/0': raw, '3 t/0': raw },
    });
    // `hash` alone is read by the transaction; with `old` in the call, by the script.
    for (const keys of [[hash], [hash, old]]) {
      const whole = await store.readSlots(keys.map((key) => ({ key })));
      const heads = await store.readSlots(keys.map((key) => ({ key, headBytes: 3 })));
      const buckets = await store.readBuckets(keys);
      for (
        const [parts, bytes] of [
          [whole.flat().map(({ part }) => part), raw],
          [heads.flat().map(({ part }) => part), raw.subarray(0, 3)],
          [buckets.flat(), raw],
        ] as const
      ) {
        expect(parts).toHaveLength(keys.length + 1);
        for (const part of parts) expect(Buffer.from(part).equals(bytes)).toBe(true);
      }
    }
    const parts = await store.readParts([{ key: hash }, { key: hash, slot: '3' }], 't/0');
    expect(parts.map((part) => part !== null && Buffer.from(part).equals(raw))).toEqual([
      true,
      true,
    ]);
  });

  test('transactions and single calls at once on one connection: each its replies', async () => {
    const store = fixture.store();
    const hashes = Array.from({ length: 8 }, (_, i) => fixture.key(`many ${i}`));
    for (const [i, hash] of hashes.entries()) {
      await fixture.write({ key: fixture.key(`offset ${i}`), value: String(i) }, {
        key: hash,
        fields: { 't/0': `part ${i}`, [`${i} t/0`]: `second ${i}` },
      });
    }
    // Transactions of two hashes interleaved with single commands, all sent in one tick: a
    // command of another call queued amid a transaction's would answer QUEUED to its caller.
    const calls = hashes.flatMap((hash, i) => [
      store.readSlots([{ key: hash }, { key: hashes[(i + 1) % hashes.length] as string }]),
      store.readOffset(fixture.key(`offset ${i}`)),
      store.readBuckets([hash]),
    ]);
    const replies = await Promise.all(calls);
    hashes.forEach((_, i) => {
      const next = (i + 1) % hashes.length;
      const [slots, offset, buckets] = replies.slice(3 * i, 3 * i + 3);
      expect(slotTexts(slots as SlottedPart[][])).toEqual([
        [`-=part ${i}`, `${i}=second ${i}`],
        [`-=part ${next}`, `${next}=second ${next}`],
      ]);
      expect(offset).toBe(i);
      expect(bucketTexts(buckets as Uint8Array[][])[0]?.toSorted()).toEqual([
        `part ${i}`,
        `second ${i}`,
      ]);
    });
  });
}
