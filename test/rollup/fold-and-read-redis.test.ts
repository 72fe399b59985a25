import { Buffer } from 'node:buffer';
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import {
  functionScope,
  invocationKey,
  LEGACY_OFFSETS_KEY,
  projectPrefix,
  quarantineKey,
  resumeKey,
  watermarkKey,
} from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { mergeParts, type UnreadableState } from '../../src/rollup/unreadable.ts';
import { truncate } from '../../src/time/grain.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { UpstashStore } from '../../src/store/upstash.ts';
import { describeWithServices } from '../support/services.ts';
import { emptyStore, openStore } from '../support/store-target.ts';
import { boundarySuite } from './boundaries.ts';
import { foldAndReadSuite } from './fold-and-read.ts';

/** The rollup keys are global (the host registry, the offsets): start from an empty database. */
async function flushDatabase(url: string): Promise<void> {
  const client = await createClient({ url }).connect();
  await client.flushDb();
  await client.close();
}

/**
 * Folds one function invocation of 11 ms (`id`, of `project` at `atUs`, answered `status`) found
 * at `offset`, and flushes it through `writer`, the project's watermarks loaded first.
 */
async function flushInvocation(
  writer: PartitionWriter,
  event: { id: string; project: string; atUs: number; status: number },
  offset: number,
  nowUs: number,
): Promise<void> {
  const parsed = parse(
    JSON.stringify({
      id: event.id,
      timestamp: event.atUs,
      metadata: [{
        project_ref: event.project,
        execution_time_ms: 11,
        response: [{ status_code: event.status }],
      }],
    }),
    'function-edge',
    { nowUs },
  );
  if (!parsed.ok) throw new Error(parsed.rejection.reason);
  await writer.loadWatermarks([event.project]);
  const fold = new Fold(writer.stream);
  fold.add(parsed.event, offset, nowUs);
  await writer.flush(fold.take(), offset + 1);
}

describeWithServices(['redis'], 'fold and read on Redis over TCP', ({ redis }) => {
  let store: RollupStore | null = null;
  afterAll(() => store?.close());
  const open = async () => {
    await store?.close();
    await flushDatabase(redis.url);
    store = await RedisStore.connect(redis.url);
    return store;
  };
  foldAndReadSuite(open);
  describe('CONTRACT section 5 boundaries', () => boundarySuite(open));
});

describeWithServices(['redisCluster'], 'fold and read on a Redis Cluster', ({ redisCluster }) => {
  const target = { kind: 'redis-cluster', nodes: redisCluster.nodes } as const;
  let store: RollupStore | null = null;
  afterAll(() => store?.close());
  const open = async () => {
    await store?.close();
    await emptyStore(target);
    store = await openStore(target);
    return store;
  };
  foldAndReadSuite(open);
  describe('CONTRACT section 5 boundaries', () => boundarySuite(open));
});

describeWithServices(
  ['redis', 'upstash'],
  'fold and read on Redis over Upstash REST',
  (services) => {
    foldAndReadSuite(async () => {
      await flushDatabase(services.redis.url);
      return new UpstashStore(services.upstash);
    });
  },
);

describeWithServices(['redis'], 'an upgrade from the layout before parts', ({ redis }) => {
  test('old bucket strings count as a part; a stream resumes at its old offset', async () => {
    await flushDatabase(redis.url);
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const project = 'upgradedprojectref00';
    const bucket = truncate(nowUs - 60_000_000, 'minute');
    const key = invocationKey(projectPrefix(project), functionScope(null), 'minute', bucket);
    const old = invocationStats.empty();
    for (const ms of [5, 7, 9]) {
      invocationStats.add(old, {
        projectRef: project,
        functionId: null,
        executionTimeMs: ms,
        statusCode: 200,
      });
    }
    // What version 0.1 left: one string per bucket, one hash of every stream's offset.
    const client = await createClient({ url: redis.url }).connect();
    await client.set(key, invocationStats.serialize(old), { PX: 3_600_000 });
    await client.hSet(LEGACY_OFFSETS_KEY, 'logs.function-edge/0', '7');
    await client.close();

    const store = await RedisStore.connect(redis.url);
    try {
      const writer = new PartitionWriter({
        store,
        stream: 'logs.function-edge/0',
        nowUs: () => nowUs,
        earliestOffset: () => Promise.resolve(0),
      });
      expect(await writer.open()).toBe(7);
      await flushInvocation(
        writer,
        { id: 'after-upgrade', project, atUs: bucket + 1_000, status: 500 },
        7,
        nowUs,
      );
      const [parts] = await store.readBuckets([key]);
      expect(parts).toHaveLength(2);
      const merged = mergeParts(invocationStats, key, parts ?? [], undefined);
      expect(merged === null ? null : invocationStats.finalize(merged)).toMatchObject({
        count: 4,
        error_count: 1,
        min_execution_time: 5,
        max_execution_time: 11,
      });
      expect(await store.readOffset(resumeKey(writer.stream))).toBe(8);
    } finally {
      await store.close();
    }
  });
});

describeWithServices(['redis'], 'a part Redis holds that cannot be read', ({ redis }) => {
  test('is moved aside byte for byte, bytes that are not UTF-8 included', async () => {
    await flushDatabase(redis.url);
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const project = 'corruptprojectref000';
    const stream = 'logs.function-edge/0';
    const bucket = truncate(nowUs - 60_000_000, 'minute');
    const key = invocationKey(projectPrefix(project), functionScope(null), 'minute', bucket);
    // The format byte of invocation stats, then bytes that are neither 7-bit nor UTF-8.
    const corrupt = Buffer.from([0x11, 0x80, 0xff, 0x41]);
    const expireAtMs = nowUs / 1000 + 3_600_000;
    const store = await RedisStore.connect(redis.url);
    const client = await createClient({ url: redis.url }).connect();
    try {
      // Written as an earlier writer of the stream left it: its watermark, then the part.
      await store.commitProject({
        stream,
        watermark: { key: watermarkKey(project), expected: null, next: 0, expireAtMs },
        parts: [{ key, value: corrupt, expireAtMs }],
        sortedSets: [],
      });
      const reported: UnreadableState[] = [];
      const writer = new PartitionWriter({
        store,
        stream,
        nowUs: () => nowUs,
        earliestOffset: () => Promise.resolve(0),
        onUnreadable: (state) => reported.push(state),
      });
      await writer.open();
      await flushInvocation(
        writer,
        { id: 'after-corruption', project, atUs: bucket + 1_000, status: 200 },
        0,
        nowUs,
      );
      expect(reported.map((state) => [state.key, state.length])).toEqual([[key, 4]]);
      const aside = await client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })
        .hGet(quarantineKey(key), stream);
      expect(aside).toEqual(corrupt);
      const [part] = await store.readParts([{ key }], stream);
      expect(invocationStats.deserialize(part ?? '').count).toBe(1);
    } finally {
      await client.close();
      await store.close();
    }
  });
});
