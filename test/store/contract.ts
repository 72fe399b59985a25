/**
 * The contract every {@link RollupStore} adapter passes: the same cases run against the memory
 * store, Redis over TCP (one Redis and a Redis Cluster) and Redis over the Upstash REST protocol.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { expect, test } from 'vitest';
import type {
  ProjectCommit,
  RollupStore,
  ScoreRange,
  SlottedPart,
  SortedSetWrite,
} from '../../src/store/port.ts';
import { bucketTexts, partText, partTexts, slotTexts } from '../support/stored-parts.ts';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `rangeByScore`'s members, each checked to be whole UTF-8 and decoded. */
async function rangeText(store: RollupStore, key: string, range: ScoreRange): Promise<string[]> {
  const members = await store.rangeByScore(key, range);
  for (const member of members) expect(member).toBeInstanceOf(Uint8Array);
  return members.map((member) => UTF8.decode(member));
}

/** Makes a store for one case and names its keys uniquely for the run. */
export interface ContractFixture {
  readonly store: () => RollupStore;
  /**
   * A key unique to this run (so runs against a shared Redis do not collide), in the key group
   * `group` (keys of one group share a Redis Cluster hash slot, as one project's keys do).
   */
  readonly key: (name: string, group?: string) => string;
  /** Unix milliseconds "now" as the store sees it. */
  readonly nowMs: () => number;
  /**
   * Whether a project commit is fenced by the stream's resume offset in the same atomic step
   * (every store whose keys live in one place; not a Redis Cluster, where they do not).
   */
  readonly fencesResume: boolean;
}

/** Registers the contract cases in the current `describe`. */
export function storeContract(fixture: ContractFixture): void {
  const far = () => fixture.nowMs() + 3_600_000;
  const key = (name: string, group = 'p') => fixture.key(name, group);
  const sortedSet = (
    partial: Partial<SortedSetWrite> & Pick<SortedSetWrite, 'key'>,
  ): SortedSetWrite => ({
    members: [],
    mode: 'add',
    keepHighest: null,
    dropBelow: null,
    expireAtMs: null,
    ...partial,
  });
  const commit = (
    stream: string,
    expected: number | null,
    next: number,
    partial: Partial<ProjectCommit> = {},
    group = 'p',
  ): ProjectCommit => ({
    stream,
    watermark: { key: key('wm', group), expected, next, expireAtMs: far() },
    parts: [],
    sortedSets: [],
    ...partial,
  });

  test('a commit applies when the watermark is the expected one, and advances it', async () => {
    const store = fixture.store();
    expect(await store.readWatermarks([key('wm')], 't/0')).toEqual([null]);
    const applied = await store.commitProject(
      commit('t/0', null, 10, { parts: [{ key: key('a'), value: 'one', expireAtMs: far() }] }),
    );
    expect(applied).toEqual({ outcome: 'applied' });
    expect(await store.readWatermarks([key('wm')], 't/0')).toEqual([10]);
    expect(await store.readWatermarks([key('wm')], 't/other')).toEqual([null]);
    expect(
      partTexts(await store.readParts([key('a'), key('missing')].map((key) => ({ key })), 't/0')),
    )
      .toEqual(['one', null]);
    expect(bucketTexts(await store.readBuckets([key('a'), key('missing')]))).toEqual([['one'], []]);
  });

  test('a reach is kept beside its watermark, with the watermark it was written with', async () => {
    const store = fixture.store();
    expect(await store.readReaches([key('wm')], 't/0')).toEqual([null]);
    const withReach = (expected: number | null, next: number, reachUs?: number) => {
      const base = commit('t/0', expected, next);
      return {
        ...base,
        watermark: { ...base.watermark, ...(reachUs === undefined ? {} : { reachUs }) },
      };
    };
    expect(await store.commitProject(withReach(null, 4, 1_795_256_130_000_000)))
      .toEqual({ outcome: 'applied' });
    expect(await store.readReaches([key('wm'), key('none')], 't/0')).toEqual([
      { offset: 4, reachUs: 1_795_256_130_000_000 },
      null,
    ]);
    expect(await store.readReaches([key('wm')], 't/other')).toEqual([null]);
    // A commit without a reach (a writer that keeps none) leaves the old one, which names the
    // watermark it held with.
    expect(await store.commitProject(withReach(4, 9))).toEqual({ outcome: 'applied' });
    expect(await store.readWatermarks([key('wm')], 't/0')).toEqual([9]);
    expect(await store.readReaches([key('wm')], 't/0')).toEqual([
      { offset: 4, reachUs: 1_795_256_130_000_000 },
    ]);
    // A refused commit writes no reach.
    expect(await store.commitProject(withReach(4, 12, 1_795_256_140_000_000)))
      .toEqual({ outcome: 'watermark-moved', stored: 9 });
    expect(await store.readReaches([key('wm')], 't/0')).toEqual([
      { offset: 4, reachUs: 1_795_256_130_000_000 },
    ]);
  });

  test('a part taken for new is written only where the stream has none; else nothing is', async () => {
    const store = fixture.store();
    const part = (name: string, value: string) => ({ key: key(name), value, expireAtMs: far() });
    const first = commit('t/0', null, 1, { newParts: [part('x', 'x0'), part('y', 'y0')] });
    expect(await store.commitProject(first)).toEqual({ outcome: 'applied' });
    expect(bucketTexts(await store.readBuckets([key('x'), key('y')]))).toEqual([['x0'], ['y0']]);
    // Another stream's part does not count: only this stream's own.
    expect(await store.commitProject(commit('t/1', null, 1, { newParts: [part('x', 'x1')] })))
      .toEqual({ outcome: 'applied' });
    // `z` is new, `y` is not: nothing of the commit lands, and the reach is marked forgotten.
    const second = commit('t/0', 1, 2, {
      newParts: [part('z', 'z0'), part('y', 'y again')],
      parts: [part('x', 'x0 again')],
      sortedSets: [sortedSet({ key: key('zs'), members: [{ score: 1, member: 'm' }] })],
    });
    const withReach = { ...second, watermark: { ...second.watermark, reachUs: 7 } };
    expect(await store.commitProject(withReach)).toEqual({
      outcome: 'part-found',
      partFound: key('y'),
    });
    expect(
      bucketTexts(await store.readBuckets([key('x'), key('y'), key('z')])).map((parts) =>
        parts.toSorted()
      ),
    ).toEqual([['x0', 'x1'], ['y0'], []]);
    expect(await rangeText(store, key('zs'), { max: 10, minExclusive: 0, limit: 10 }))
      .toEqual([]);
    expect(await store.readWatermarks([key('wm')], 't/0')).toEqual([1]);
    expect(await store.readReaches([key('wm')], 't/0')).toEqual([{ forgotten: true }]);
    // A key that holds another stream's part keeps it when this stream's new part is taken back.
    const third = commit('t/0', 1, 2, { newParts: [part('v', 'v0'), part('x', 'x0 twice')] });
    expect(await store.commitProject(third)).toEqual({
      outcome: 'part-found',
      partFound: key('x'),
    });
    expect(await store.commitProject(commit('t/1', 1, 2, { newParts: [part('u', 'u1')] })))
      .toEqual({ outcome: 'applied' });
    const fourth = commit('t/0', 1, 2, { newParts: [part('u', 'u0'), part('y', 'y twice')] });
    expect(await store.commitProject(fourth)).toEqual({
      outcome: 'part-found',
      partFound: key('y'),
    });
    expect(bucketTexts(await store.readBuckets([key('u'), key('v')]))).toEqual([['u1'], []]);
    // Also where the stream has no watermark at all (it expired before its parts).
    const orphan = commit('t/2', null, 1, { newParts: [part('w', 'w2')] });
    expect(await store.commitProject(orphan)).toEqual({ outcome: 'applied' });
    const lost = commit('t/2', null, 1, { newParts: [part('w', 'w2 again')] });
    const moved = { ...lost, watermark: { ...lost.watermark, key: key('wm gone') } };
    expect(await store.commitProject(moved)).toEqual({
      outcome: 'part-found',
      partFound: key('w'),
    });
    expect(bucketTexts(await store.readBuckets([key('w')]))).toEqual([['w2']]);
    expect(await store.readReaches([key('wm gone')], 't/2')).toEqual([{ forgotten: true }]);
    expect(await store.readWatermarks([key('wm gone')], 't/2')).toEqual([null]);
  });

  test('a commit fenced by a resume offset the store does not hold: refused where it can tell', async () => {
    const store = fixture.store();
    const resume = key('resume', 'stream');
    const fenced = commit('t/2', null, 9, {
      parts: [{ key: key('c'), value: 'after-loss', expireAtMs: far() }],
      resume: { key: resume, expected: 7 },
    });
    if (!fixture.fencesResume) {
      // A Redis Cluster keeps the resume key on another node: the writer reads it beforehand.
      expect(await store.commitProject(fenced)).toEqual({ outcome: 'applied' });
      return;
    }
    // The store lost the stream's resume offset (7) since the writer read it.
    expect(await store.commitProject(fenced)).toEqual({
      outcome: 'resume-moved',
      resumeStored: null,
    });
    expect(bucketTexts(await store.readBuckets([key('c')]))).toEqual([[]]);
    expect(await store.readWatermarks([key('wm')], 't/2')).toEqual([null]);
    expect(await store.advanceOffset(resume, null, 8)).toBe(true);
    expect(await store.commitProject(fenced)).toEqual({ outcome: 'resume-moved', resumeStored: 8 });
    expect(await store.advanceOffset(resume, 8, 7)).toBe(true);
    expect(await store.commitProject(fenced)).toEqual({ outcome: 'applied' });
    expect(bucketTexts(await store.readBuckets([key('c')]))).toEqual([['after-loss']]);
  });

  test('a commit whose expected watermark is stale writes nothing and says what is stored', async () => {
    const store = fixture.store();
    await store.commitProject(commit('t/1', null, 5));
    const replay = commit('t/1', null, 7, {
      parts: [{ key: key('b'), value: 'stale', expireAtMs: far() }],
      sortedSets: [sortedSet({ key: key('zs'), members: [{ score: 1, member: 'x' }] })],
    });
    expect(await store.commitProject(replay)).toEqual({ outcome: 'watermark-moved', stored: 5 });
    const wrong = { ...replay, watermark: { ...replay.watermark, expected: 4 } };
    expect(await store.commitProject(wrong)).toEqual({ outcome: 'watermark-moved', stored: 5 });
    const early = commit('t/9', 3, 4);
    expect(await store.commitProject(early)).toEqual({ outcome: 'watermark-moved', stored: null });
    expect(bucketTexts(await store.readBuckets([key('b')]))).toEqual([[]]);
    expect(await rangeText(store, key('zs'), { max: 10, minExclusive: 0, limit: 10 }))
      .toEqual([]);
    expect(await store.readWatermarks([key('wm')], 't/1')).toEqual([5]);
  });

  test('each stream writes its own part of a bucket; a reader gets every part', async () => {
    const store = fixture.store();
    const bucket = key('bucket');
    const write = (stream: string, value: string) =>
      store.commitProject(
        commit(stream, null, 1, { parts: [{ key: bucket, value, expireAtMs: far() }] }),
      );
    await Promise.all([write('t/a', 'from a'), write('t/b', 'from b'), write('t/c', 'from c')]);
    expect((bucketTexts(await store.readBuckets([bucket])))[0]?.sort()).toEqual([
      'from a',
      'from b',
      'from c',
    ]);
    expect(partTexts(await store.readParts([bucket].map((key) => ({ key })), 't/b'))).toEqual([
      'from b',
    ]);
    // A stream's next commit replaces its own part only.
    await store.commitProject(
      commit('t/b', 1, 2, { parts: [{ key: bucket, value: 'b again', expireAtMs: far() }] }),
    );
    expect((bucketTexts(await store.readBuckets([bucket])))[0]?.sort()).toEqual([
      'b again',
      'from a',
      'from c',
    ]);
  });

  test('a hash keeps several buckets in slots, each with a part per stream', async () => {
    const store = fixture.store();
    const minute = key('seconds');
    const part = (slot: string, value: string) => ({ key: minute, slot, value, expireAtMs: far() });
    expect(
      await store.commitProject(
        commit('t/a', null, 1, { parts: [part('0', 'a0'), part('17', 'a17')] }),
      ),
    )
      .toEqual({ outcome: 'applied' });
    expect(await store.commitProject(commit('t/b', null, 1, { newParts: [part('17', 'b17')] })))
      .toEqual({ outcome: 'applied' });
    // The bucket's own part sits beside the slots.
    expect(
      await store.commitProject(commit('t/c', null, 1, {
        parts: [{ key: minute, value: 'c', expireAtMs: far() }],
      })),
    ).toEqual({ outcome: 'applied' });
    const bySlot = async () =>
      slotTexts(await store.readSlots([{ key: minute }, { key: key('no seconds') }]));
    expect(await bySlot()).toEqual([['-=c', '0=a0', '17=a17', '17=b17'], []]);
    expect(
      partTexts(
        await store.readParts(
          [{ key: minute, slot: '17' }, { key: minute, slot: '0' }, { key: minute, slot: '5' }, {
            key: minute,
          }],
          't/a',
        ),
      ),
    ).toEqual(['a17', 'a0', null, null]);
    // A stream replaces its part of one slot only.
    await store.commitProject(commit('t/a', 1, 2, { parts: [part('17', 'a17 again')] }));
    expect(await bySlot()).toEqual([['-=c', '0=a0', '17=a17 again', '17=b17'], []]);
    // A new part is refused only where the stream has a part in that very slot.
    expect(await store.commitProject(commit('t/b', 1, 2, { newParts: [part('0', 'b0')] })))
      .toEqual({ outcome: 'applied' });
    const refused = commit('t/b', 2, 3, {
      newParts: [part('1', 'b1'), part('2', 'b2'), part('17', 'b17 again')],
    });
    expect(await store.commitProject(refused)).toEqual({
      outcome: 'part-found',
      partFound: minute,
    });
    expect(await bySlot()).toEqual([['-=c', '0=a0', '0=b0', '17=a17 again', '17=b17'], []]);
    expect(await store.readBuckets([minute]).then(([parts]) => parts?.length)).toBe(5);
  });

  test('a read of heads gives the first bytes of each part', async () => {
    const store = fixture.store();
    const bucket = key('heads');
    const parts = [
      { key: bucket, value: '{"n":12345,"e":0,"rest":"long"}', expireAtMs: far() },
      { key: bucket, slot: '3', value: 'ab', expireAtMs: far() },
      { key: bucket, slot: '4', value: 'aé€x', expireAtMs: far() },
    ];
    expect(await store.commitProject(commit('t/h', null, 1, { parts }))).toEqual({
      outcome: 'applied',
    });
    const heads = await store.readSlots([{ key: bucket, headBytes: 6 }, {
      key: bucket,
      headBytes: 4,
    }]);
    const bySlot = (read: SlottedPart[] | undefined) =>
      new Map((read ?? []).map(({ slot, part }) => [slot ?? '-', Buffer.from(part)]));
    const [six, four] = [bySlot(heads[0]), bySlot(heads[1])];
    expect(Object.fromEntries(six)).toEqual({
      '-': Buffer.from('{"n":1'),
      3: Buffer.from('ab'),
      4: Buffer.from('aé€'),
    });
    expect([four.get('-'), four.get('3')]).toEqual([Buffer.from('{"n"'), Buffer.from('ab')]);
    // `€` is 3 bytes: a head of 4 ends inside it, with its first byte, or U+FFFD over the REST
    // API (its JSON gives text). Stored states are 7-bit: no reader of heads meets a cut one.
    expect([Buffer.from('aé€').subarray(0, 4), Buffer.from('aé\uFFFD')]).toContainEqual(
      four.get('4'),
    );
  });

  test('reads span key groups and keep the order of the keys asked', async () => {
    const store = fixture.store();
    const groups = ['g1', 'g2', 'g3', 'g4', 'g5'];
    for (const group of groups) {
      await store.commitProject(
        commit('t/g', null, 1, {
          parts: [{ key: key('x', group), value: `x of ${group}`, expireAtMs: far() }],
        }, group),
      );
    }
    const keys = [...groups].reverse().flatMap((group) => [key('x', group), key('none', group)]);
    expect(partTexts(await store.readParts(keys.map((key) => ({ key })), 't/g'))).toEqual(
      [...groups].reverse().flatMap((group) => [`x of ${group}`, null]),
    );
    expect(bucketTexts(await store.readBuckets(keys))).toEqual(
      [...groups].reverse().flatMap((group) => [[`x of ${group}`], []]),
    );
    expect(await store.readWatermarks(groups.map((group) => key('wm', group)), 't/g'))
      .toEqual([1, 1, 1, 1, 1]);
  });

  test('parts expire at their expiry time', async () => {
    const store = fixture.store();
    await store.commitProject(commit('t/2', null, 1, {
      parts: [
        { key: key('gone'), value: 'x', expireAtMs: fixture.nowMs() - 1 },
        { key: key('kept'), value: 'y', expireAtMs: far() },
      ],
    }));
    expect(bucketTexts(await store.readBuckets([key('gone'), key('kept')]))).toEqual([[], ['y']]);
  });

  test('the parts of one key in a commit: the key ends with the last expiry they give it', async () => {
    const store = fixture.store();
    const past = fixture.nowMs() - 1;
    const part = (name: string, slot: string, expireAtMs: number) => ({
      key: key(name),
      slot,
      value: slot,
      expireAtMs,
    });
    await store.commitProject(commit('t/e', null, 1, {
      newParts: [part('new seconds', '1', past), part('new seconds', '2', past)],
      parts: [
        part('seconds', '1', past),
        part('seconds', '2', past),
        part('kept', '1', far()),
        part('kept', '2', far()),
        part('later', '1', far()),
        part('later', '2', past),
      ],
    }));
    const names = ['new seconds', 'seconds', 'kept', 'later'];
    expect(
      (bucketTexts(await store.readBuckets(names.map((name) => key(name))))).map((parts) =>
        parts.length
      ),
    ).toEqual([0, 0, 2, 0]);
  });

  test('many parts of two keys interleaved: each written, a new one refused anywhere', async () => {
    const store = fixture.store();
    const [one, two] = [key('many one'), key('many two')];
    // Slots from..to-1 of both keys, alternating: hundreds of parts per key in one commit.
    const parts = (from: number, to: number, value: string) =>
      Array.from({ length: to - from }, (_, i) => String(from + i)).flatMap((slot) =>
        [one, two].map((bucket) => ({
          key: bucket,
          slot,
          value: `${value}${slot}`,
          expireAtMs: far(),
        }))
      );
    const slotsOf = async () =>
      (await store.readSlots([{ key: one }, { key: two }])).map((read) =>
        new Map(read.map(({ slot, part }) => [slot, partText(part)]))
      );
    expect(await store.commitProject(commit('t/m', null, 1, { newParts: parts(0, 450, 'a') })))
      .toEqual({ outcome: 'applied' });
    const next = commit('t/m', 1, 2, {
      parts: parts(0, 450, 'b'),
      newParts: parts(450, 900, 'c'),
    });
    expect(await store.commitProject(next)).toEqual({ outcome: 'applied' });
    for (const slots of await slotsOf()) {
      expect(slots.size).toBe(900);
      expect([slots.get('0'), slots.get('449'), slots.get('450'), slots.get('899')])
        .toEqual(['b0', 'b449', 'c450', 'c899']);
    }
    // Slot 5 of `two` is held already: last after 800 new parts, first, then amid them.
    const held = { key: two, slot: '5', value: 'd5', expireAtMs: far() };
    const fresh = parts(900, 1300, 'd');
    for (
      const newParts of [[...fresh, held], [held, ...fresh], [
        ...fresh.slice(0, 401),
        held,
        ...fresh.slice(401),
      ]]
    ) {
      expect(await store.commitProject(commit('t/m', 2, 3, { newParts })))
        .toEqual({ outcome: 'part-found', partFound: two });
      for (const slots of await slotsOf()) {
        expect([slots.size, slots.get('5'), slots.get('900')]).toEqual([900, 'b5', undefined]);
      }
    }
    expect(await store.readReaches([key('wm')], 't/m')).toEqual([{ forgotten: true }]);
    // Two new parts of a key, and one of another.
    const few = commit('t/m', 2, 3, {
      newParts: [...parts(1300, 1301, 'e'), {
        key: one,
        slot: '1301',
        value: 'e',
        expireAtMs: far(),
      }],
    });
    expect(await store.commitProject(few)).toEqual({ outcome: 'applied' });
    const [ones, twos] = await slotsOf();
    expect([ones?.size, ones?.get('1300'), ones?.get('1301'), twos?.size, twos?.get('1300')])
      .toEqual([902, 'e1300', 'e', 901, 'e1300']);
  });

  test('a resume offset moves by compare-and-set only', async () => {
    const store = fixture.store();
    const offset = key('resume', 'stream');
    expect(await store.readOffset(offset)).toBeNull();
    expect(await store.advanceOffset(offset, 3, 4)).toBe(false);
    expect(await store.advanceOffset(offset, null, 4)).toBe(true);
    expect(await store.advanceOffset(offset, null, 9)).toBe(false);
    expect(await store.advanceOffset(offset, 4, 2)).toBe(true);
    expect(await store.readOffset(offset)).toBe(2);
  });

  test('sorted sets: newest first, ties by member bytes descending, bounds and limit', async () => {
    const store = fixture.store();
    const logs = key('logs');
    await store.commitProject(commit('t/3', null, 1, {
      sortedSets: [sortedSet({
        key: logs,
        members: [
          { score: 1_795_256_130_123_456, member: 'b' },
          { score: 1_795_256_130_123_456, member: 'a' },
          { score: 1_795_256_130_123_457, member: 'c' },
          { score: 1_795_256_130_000_000, member: 'é' },
          { score: 1_795_256_130_000_000, member: '\u{1F600}' },
          { score: 1_795_256_129_000_000, member: 'old' },
        ],
      })],
    }));
    const all = {
      max: Number.POSITIVE_INFINITY,
      minExclusive: Number.NEGATIVE_INFINITY,
      limit: 100,
    };
    expect(await rangeText(store, logs, all)).toEqual(['c', 'b', 'a', '\u{1F600}', 'é', 'old']);
    expect(
      await rangeText(store, logs, {
        max: 1_795_256_130_123_456,
        minExclusive: 1_795_256_130_000_000,
        limit: 100,
      }),
    )
      .toEqual(['b', 'a']);
    expect(await rangeText(store, logs, { ...all, limit: 2 })).toEqual(['c', 'b']);
  });

  test('sorted sets keep only the highest scores, drop those below the bound, expire', async () => {
    const store = fixture.store();
    const ring = key('ring');
    const members = Array.from({ length: 20 }, (_, i) => ({ score: 100 + i, member: `m${i}` }));
    await store.commitProject(commit('t/4', null, 1, {
      sortedSets: [sortedSet({ key: ring, members, keepHighest: 5 })],
    }));
    const all = {
      max: Number.POSITIVE_INFINITY,
      minExclusive: Number.NEGATIVE_INFINITY,
      limit: 100,
    };
    expect(await rangeText(store, ring, all)).toEqual(['m19', 'm18', 'm17', 'm16', 'm15']);
    await store.updateSortedSet(sortedSet({ key: ring, dropBelow: 118 }));
    expect(await rangeText(store, ring, all)).toEqual(['m19', 'm18']);
    await store.updateSortedSet(sortedSet({ key: ring, expireAtMs: fixture.nowMs() - 1 }));
    expect(await rangeText(store, ring, all)).toEqual([]);
  });

  test('a sorted-set write on its own adds, keeps the highest, drops below the bound', async () => {
    const store = fixture.store();
    const ring = key('ring-alone');
    // More members than one ZADD of the commit script takes (400 pairs), byte-exact texts.
    const members = Array.from({ length: 1_000 }, (_, i) => ({
      score: 1_000 + i,
      member: `e${i}\u0000${'0'.repeat(16)}@t/9\u0000{"é":"\u{1F680}"}`,
    }));
    const write = (partial: Partial<SortedSetWrite>) =>
      store.updateSortedSet(sortedSet({ key: ring, keepHighest: 600, ...partial }));
    await write({ members });
    // Written again (a replay), those kept and those already trimmed: nothing changes.
    await write({ members: members.slice(900) });
    await write({ members: members.slice(0, 400) });
    const kept = await store.membersSince(ring, 0);
    expect(kept).toHaveLength(600);
    expect(kept[0]).toEqual(members[400]);
    expect(kept.at(-1)).toEqual(members[999]);
    await write({ members: [{ score: 5_000, member: 'new' }], dropBelow: 1_990 });
    expect(await store.membersSince(ring, 0)).toEqual([
      ...members.slice(990),
      { score: 5_000, member: 'new' },
    ]);
  });

  test('max mode keeps the greater score; membersSince filters by score', async () => {
    const store = fixture.store();
    const hosts = key('hosts', 'registry');
    const write = (score: number) =>
      store.updateSortedSet(sortedSet({
        key: hosts,
        members: [{ score, member: 'h1' }, { score: 50, member: 'h2' }],
        mode: 'max',
      }));
    await write(100);
    await write(10);
    expect(await store.membersSince(hosts, 60)).toEqual([{ member: 'h1', score: 100 }]);
    expect(await store.membersSince(hosts, 0)).toEqual([
      { member: 'h2', score: 50 },
      { member: 'h1', score: 100 },
    ]);
  });

  test('values and members are kept byte for byte (unicode, NUL, JSON text)', async () => {
    const store = fixture.store();
    const value = JSON.stringify({ q: { v: [1.5, 2e-7] }, s: 'ünï\u0000cödé \u{1F680}' });
    const member = `id\u0000${'0'.padStart(16, '0')}@t/6\u0000${value}`;
    await store.commitProject(commit('t/6', null, 1, {
      parts: [{ key: key('bytes'), value, expireAtMs: far() }],
      sortedSets: [sortedSet({
        key: key('bytes-z'),
        members: [{ score: 1_795_256_130_123_456, member }],
      })],
    }));
    expect(bucketTexts(await store.readBuckets([key('bytes')]))).toEqual([[value]]);
    expect(await store.membersSince(key('bytes-z'), 0)).toEqual([
      { member, score: 1_795_256_130_123_456 },
    ]);
  });

  test('a member given as bytes is kept as those bytes, in a commit and on its own', async () => {
    const store = fixture.store();
    const text = `id\u0000${'0'.padStart(16, '0')}@t/7\u0000{"s":"ünï cödé \u{1F680}"}`;
    const bytes = new TextEncoder().encode(text);
    // A view into a larger buffer, as a ring-buffer entry built from a Kafka message is.
    const within = new Uint8Array(bytes.length + 8);
    within.set(bytes, 4);
    const member = within.subarray(4, 4 + bytes.length);
    await store.commitProject(commit('t/7', null, 1, {
      sortedSets: [sortedSet({ key: key('bytes-c'), members: [{ score: 7, member }] })],
    }));
    await store.updateSortedSet(
      sortedSet({ key: key('bytes-u'), members: [{ score: 8, member }] }),
    );
    expect(await store.membersSince(key('bytes-c'), 0)).toEqual([{ member: text, score: 7 }]);
    expect(await store.membersSince(key('bytes-u'), 0)).toEqual([{ member: text, score: 8 }]);
    const [read] = await store.rangeByScore(key('bytes-u'), { max: 10, minExclusive: 0, limit: 5 });
    expect(Buffer.from(read ?? []).equals(Buffer.from(bytes))).toBe(true);
  });
}
