/**
 * End to end on a broker that takes only SASL_SSL (SCRAM-SHA-512, the local CA) and a TLS Redis
 * with an ACL user, configured as a deployment is (KAFKA_TLS_CA_FILE, KAFKA_SASL_MECHANISM,
 * KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD_FILE; rediss://, REDIS_TLS_CA_FILE, REDIS_USERNAME,
 * REDIS_PASSWORD_FILE): events through `POST /api/ingest` (the Kafka sink), then more through
 * `npm run replay`, folded by the consumers of the same process; every endpoint answers what
 * the reference evaluator says of all of them.
 *
 * Isolation: topics under a unique prefix (deleted afterwards), a unique consumer group, and
 * the secure Redis's database 13, emptied first.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Service } from '../../service/start.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { kafkaClient } from '../../src/kafka/client.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { createLogger } from '../../src/logger.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { TEST_KEY } from '../api/helpers/app.ts';
import { type Call, expectLiveAnswersMatchReference, ingestLines } from '../api/helpers/http.ts';
import { responseValidator } from '../api/helpers/openapi-validator.ts';
import { queriesFor, validEvents } from '../rollup/fold-and-read.ts';
import { secureTarget } from '../support/secure-target.ts';
import { startReadyService } from '../support/service.ts';
import { offsetsReachEnds } from '../support/drained.ts';
import { describeWithServices, redisDatabaseUrl } from '../support/services.ts';
import { emptyStore, openStore } from '../support/store-target.ts';

const DATABASE = 13;
const PARTITIONS = 3;
const MINUTE_US = 60_000_000;

/** Events of the last ten minutes over 20 projects, both sources, `seed` apart. */
function recentLines(seed: number, nowUs: number) {
  return [
    ...generateEvents({
      seed,
      events: 800,
      nowUs,
      spanUs: 10 * MINUTE_US,
      invalid: 0.01,
      projects: 20,
    }),
  ];
}

describeWithServices(
  ['secureKafka', 'secureRedis'],
  'consumers, API ingest and replay over SASL_SSL into a TLS Redis',
  ({ secureKafka, secureRedis }) => {
    const prefix = `secure-e2e-${randomUUID().slice(0, 8)}.`;
    const topics = topicNames(prefix);
    const redisUrl = redisDatabaseUrl(secureRedis.url, DATABASE);
    const settings: Record<string, string> = {
      ...secureKafka.settings,
      ...secureRedis.settings,
      REDIS_URL: redisUrl,
      KAFKA_TOPIC_PREFIX: prefix,
      TOPIC_PARTITIONS: String(PARTITIONS),
    };
    const target = secureTarget(secureRedis, { REDIS_URL: redisUrl });
    let config: Config;
    let service: Service | null = null;
    let call: Call = () => Promise.reject(new Error('the service did not start'));
    const events: LogEvent[] = [];

    beforeAll(async () => {
      await emptyStore(target);
      config = loadConfig({
        ...settings,
        KAFKA_GROUP_ID: `${prefix}group`,
        FLUSH_INTERVAL_MS: '100',
        API_KEYS: TEST_KEY,
        PORT: '0',
      });
      ({ service, call } = await startReadyService(config, 'secure-e2e', TEST_KEY));
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
      const admin = kafkaClient(config, createLogger('silent', 'test'), secureKafka.brokers)
        .admin();
      await admin.connect();
      await admin.deleteTopics({ topics: Object.values(topics) });
      await admin.disconnect();
    }, 60_000);

    /** Resolves once the consumers stored offsets up to the end of every source partition. */
    async function drained(timeoutMs: number): Promise<void> {
      const admin = kafkaClient(config, createLogger('silent', 'test'), secureKafka.brokers)
        .admin();
      const store = await openStore(target);
      await admin.connect();
      try {
        await offsetsReachEnds(admin, store, topics, timeoutMs);
      } finally {
        await admin.disconnect();
        await store.close();
      }
    }

    test('ingested through the API: every endpoint answers what the reference says', async () => {
      const nowUs = Date.now() * 1000;
      const lines = recentLines(31, nowUs);
      const check = responseValidator(await (await call('/openapi.json')).json());
      const valid = validEvents(lines, nowUs);
      const totals = await ingestLines(call, lines, check, 1_000);
      expect(totals.accepted).toBe(valid.length);
      events.push(...valid);
      await drained(90_000);
      await expectLiveAnswersMatchReference(call, events, queriesFor(events, nowUs), check);
    }, 180_000);

    test('then replayed with npm run replay: the answers take in those events too', async () => {
      const nowUs = Date.now() * 1000;
      const lines = recentLines(32, nowUs);
      const dir = mkdtempSync(join(tmpdir(), 'secure-replay-'));
      const files = (['edge', 'function-edge'] as const).map((source) => {
        const file = join(dir, `${source}.ndjson`);
        const ofSource = lines.filter((line) => line.source === source).map(({ line }) => line);
        writeFileSync(file, `${ofSource.join('\n')}\n`);
        return file;
      });
      const run = await replay(files, settings);
      expect(run.output).not.toMatch(/\n\s+at /);
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain(`published ${lines.length} events`);
      events.push(...validEvents(lines, nowUs));
      await drained(90_000);
      const check = responseValidator(await (await call('/openapi.json')).json());
      await expectLiveAnswersMatchReference(call, events, queriesFor(events, nowUs), check);
    }, 180_000);

    test('no password shows in /metrics, /readyz or /healthz', async () => {
      const passwords = ['KAFKA_SASL_PASSWORD_FILE', 'REDIS_PASSWORD_FILE'].map((name) =>
        readFileSync(settings[name] ?? '', 'utf8').trim()
      );
      for (const path of ['/metrics', '/readyz', '/healthz']) {
        const body = await (await call(path)).text();
        for (const password of passwords) expect(body).not.toContain(password);
      }
    });
  },
);

/** `npm run replay -- FILES` with `env` (and none of the plaintext services' variables). */
function replay(files: readonly string[], env: Record<string, string>) {
  const base = { ...process.env };
  for (const name of Object.keys(base)) if (/^(KAFKA_|REDIS_)/.test(name)) delete base[name];
  const child = spawn(
    process.execPath,
    ['--disable-warning=TimeoutNegativeWarning', 'tools/replay.ts', ...files],
    { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, output }));
  });
}
