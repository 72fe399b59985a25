/**
 * The soak in short form (`npm run soak`'s own code, `tools/soak/run.ts`): the plan of a
 * three-minute soak, each of its minutes compressed to 20 s, at a low rate: a consumer replaced
 * every minute (SIGTERM, then SIGKILL) and the soak's Redis shut down and started again
 * half-way, while the API is asked all along. No error may be reported
 * (an answer other than 200 outside the planned Redis restart, an error log, a process that
 * died, a marker never seen through the API, a lag left), and once drained every answer equals
 * the reference evaluator over what was published (the markers included).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisStore } from '../../src/store/redis.ts';
import { MARKER_PROJECT } from '../../tools/replay/probe.ts';
import { startOwnRedis, stopOwnRedis } from '../../tools/services/own-redis.ts';
import { runSoak } from '../../tools/soak/run.ts';
import type { Service } from '../../tools/services/service.ts';
import { expectStoreMatchesReference, queriesFor, validEvents } from '../rollup/fold-and-read.ts';
import { describeWithServices } from '../support/services.ts';

/** Minutes of the short soak's plan; SOAK_TEST_MINUTES lengthens it for a local run. */
const MINUTES = Number(process.env.SOAK_TEST_MINUTES ?? 3);
/** How long each of them lasts (ms); SOAK_TEST_MINUTE_MS=60000 runs them as real minutes. */
const MINUTE_MS = Number(process.env.SOAK_TEST_MINUTE_MS ?? 20_000);

describeWithServices(['kafka', 'redis-server'], 'the soak in short form', ({ kafka }) => {
  let redis: Service | undefined;

  beforeAll(async () => {
    redis = await startOwnRedis(`redis-soak-test-${process.pid}`);
  }, 120_000);

  afterAll(async () => {
    if (redis !== undefined) await stopOwnRedis(redis);
  });

  test(
    'a consumer replaced every minute and Redis restarted: no error, every answer exact',
    async () => {
      if (redis === undefined) throw new Error('the soak test has no Redis');
      const report = await runSoak({
        brokers: kafka.brokers,
        redis,
        minutes: MINUTES,
        minuteMs: MINUTE_MS,
        rate: 300,
        consumers: 2,
        restartEveryMinutes: 1,
        seed: 1,
        keepLines: true,
        print: (line) => console.log(line),
      });
      const done = report.rows.flatMap((row) => row.events).join('; ');
      expect(done).toContain('SIGTERM, replaced');
      expect(done).toContain('SIGKILL, replaced');
      expect(done).toContain('Redis restarted');
      expect(report.errors).toEqual([]);
      expect(report.lines.length).toBe(report.published);

      const store = await RedisStore.connect(redis.address);
      try {
        const nowUs = report.drainedUs;
        const events = validEvents([...report.lines], nowUs);
        expect(events.length).toBe(report.lines.length);
        await expectStoreMatchesReference(store, events, nowUs, 60, [
          ...queriesFor(events, nowUs),
          ['logs.all', `project=${MARKER_PROJECT}&project_tier=PRO`],
        ]);
      } finally {
        await store.close();
      }
    },
    20 * 60_000,
  );
});
