/**
 * Issue 12, item 3: no key is kept forever. After direct ingest (the embedded write path, one
 * stream per process) and a second process start, every key on a real Redis carries an expiry no
 * later than its data's longest life (90 days and the slack), except the host registry (one key,
 * trimmed to its horizon at every write) — and what each process start adds (its watermark of
 * each project it wrote) expires two days after its last commit.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { MAX_EVENT_AGE_US } from '../../src/events/limits.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { DIRECT_WATERMARK_LIFE_US } from '../../src/rollup/stream-kind.ts';
import { EXPIRY_SLACK_US, HOSTS_KEY } from '../../src/rollup/keys.ts';
import type { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { describeWithServices } from '../support/services.ts';
import { emptyStore, openStore } from '../support/store-target.ts';

describeWithServices(['redis'], 'key lifetimes on Redis', ({ redis }) => {
  const target = { kind: 'redis', url: redis.url } as const;
  const nowUs = Date.now() * 1000;
  let store: RedisStore;

  beforeAll(async () => {
    await emptyStore(target);
    store = await openStore(target);
    const events: Record<'edge' | 'function-edge', LogEvent[]> = { edge: [], 'function-edge': [] };
    for (
      const { source, line } of generateEvents({ seed: 12, events: 2_000, nowUs, projects: 5 })
    ) {
      const result = parse(line, source, { nowUs });
      if (result.ok) events[source].push(result.event);
    }
    // Two process starts, each its own stream.
    for (let start = 0; start < 2; start++) {
      const ingest = new DirectIngest({ store, nowUs: () => nowUs });
      await ingest.fold(events.edge);
      await ingest.fold(events['function-edge']);
    }
  }, 60_000);

  afterAll(async () => {
    await store?.close();
  });

  test('every key expires within its data life; none counts process starts', async () => {
    const client = await createClient({ url: redis.url }).connect();
    try {
      const keys = await client.keys('*');
      expect(keys.length).toBeGreaterThan(50);
      const forever: string[] = [];
      const latestMs = Math.ceil((Date.now() * 1000 + MAX_EVENT_AGE_US + EXPIRY_SLACK_US) / 1000);
      for (const key of keys) {
        const expireAtMs = await client.pExpireTime(key);
        if (key === HOSTS_KEY) continue;
        // -2: the key expired after it was listed. The seconds of the oldest minute still kept
        // live about 8 minutes, so a run near their end saw them go (4 keys in one CI run).
        if (expireAtMs === -2) continue;
        if (expireAtMs === -1) forever.push(key);
        else expect(expireAtMs, key).toBeLessThanOrEqual(latestMs + 60_000);
      }
      expect(forever).toEqual([]);
      expect(keys.filter((key) => /offsets|resume/.test(key))).toEqual([]);
      // A process start's watermarks, and the keys its stream admitted (per-project bounds), are
      // keys of their own that expire soon after its last commit, never fields of a project's
      // long-lived watermark hash.
      const starts = keys.filter((key) => /:(wm|admitted):ingest\//.test(key));
      expect(starts.filter((key) => key.includes(':wm:')).length).toBeGreaterThanOrEqual(2 * 5);
      expect(starts.filter((key) => key.includes(':admitted:')).length).toBeGreaterThanOrEqual(
        2 * 5,
      );
      const soonMs = Math.ceil((Date.now() * 1000 + DIRECT_WATERMARK_LIFE_US) / 1000) + 60_000;
      for (const key of starts) expect(await client.pExpireTime(key), key).toBeLessThan(soonMs);
      for (const key of keys.filter((candidate) => candidate.endsWith(':wm'))) {
        expect(
          Object.keys(await client.hGetAll(key)).filter((field) => field.startsWith('ingest/')),
        )
          .toEqual([]);
      }
      const other = keys.filter((key) => key.includes('ingest/') && !starts.includes(key));
      expect(other).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
