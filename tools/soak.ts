/**
 * `npm run soak -- --minutes N --rate R [--consumers 2] [--restart-every 5] [--seed 1]`: runs the
 * service for N minutes under R generated events a second, on the broker of `KAFKA_BROKERS`
 * (default: `npm run services:up`'s broker) and a Redis of its own, and prints one row a minute (see
 * `tools/soak/run.ts`), then the slope of each process's memory and of Redis's. Exits 1 when
 * anything went wrong (an answer other than 200 outside the planned Redis restart, an error log,
 * a process that died, a marker never seen, a lag not drained).
 *
 * @module
 */
import { refuseFlag, toolArgs } from './tool-args.ts';
import { positiveFlag } from './bench/measure.ts';
import { slopePerHour } from './soak/minute-row.ts';
import { startOwnRedis, stopOwnRedis } from './services/own-redis.ts';
import { runSoak } from './soak/run.ts';
import { kafkaService } from './services/kafka.ts';

const { values } = toolArgs(import.meta.url, {
  options: {
    minutes: { type: 'string' },
    rate: { type: 'string' },
    consumers: { type: 'string', default: '2' },
    'restart-every': { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
  },
});
if (values.minutes === undefined || values.rate === undefined) {
  refuseFlag('--minutes and --rate are required');
}
const flags = {
  minutes: positiveFlag('minutes', values.minutes),
  rate: positiveFlag('rate', values.rate),
  consumers: positiveFlag('consumers', values.consumers),
  restartEveryMinutes: positiveFlag('restart-every', values['restart-every']),
  seed: positiveFlag('seed', values.seed),
};

const redis = await startOwnRedis(`redis-soak-${process.pid}`);
// Interrupted (Ctrl-C reaches the consumers and the API too: they stop), the Redis started
// detached must not outlive the soak.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopOwnRedis(redis).finally(() => process.exit(130));
  });
}
try {
  const report = await runSoak({
    ...flags,
    brokers: (process.env.KAFKA_BROKERS ?? kafkaService().address).split(','),
    redis,
    keepLines: false,
    print: (line) => console.log(line),
  });
  // Memory once the soak has settled: from the third minute on (start-up and the first
  // windows' fill left out), and from the half on.
  for (const from of [3, Math.ceil(flags.minutes / 2)]) {
    const rows = report.rows.filter((row) => row.minute >= from);
    const slope = (pick: (row: (typeof rows)[number]) => number | null) => {
      const value = slopePerHour(rows.map(pick));
      return value === null ? '-' : `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;
    };
    console.log(
      `slope from minute ${from}, MiB per hour: consumers' RSS ${
        slope((row) => row.consumerRssMiB.reduce<number>((sum, rss) => sum + (rss ?? 0), 0))
      } (together), API RSS ${slope((row) => row.apiRssMiB)}, Redis used memory ${
        slope((row) => row.redisUsedMiB)
      }`,
    );
  }
  process.exitCode = report.errors.length === 0 ? 0 : 1;
} finally {
  await stopOwnRedis(redis);
}
