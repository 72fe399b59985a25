/**
 * `npm run replay` against a real broker, with the service (API and consumers, `npm start`) on
 * Redis: a gzip file and standard input rebased to now show exactly the replayed traffic through
 * the API (the reference evaluator over what was published); every event moved by one offset;
 * `--speed 1` pacing as a measured figure; the load-test report; Ctrl-C mid-replay; missing and
 * malformed files.
 */
import { until } from '../support/poll.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Service } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { parseTimestamp } from '../../src/time/timestamp.ts';
import type { LoadTestReport } from '../../tools/replay/report.ts';
import { TEST_KEY } from '../api/helpers/app.ts';
import { type Call, expectLiveAnswersMatchReference } from '../api/helpers/http.ts';
import { responseValidator } from '../api/helpers/openapi-validator.ts';
import { createWorld, PARTITIONS, type World } from '../consumers/harness.ts';
import { queriesFor } from '../rollup/fold-and-read.ts';
import { startReadyService } from '../support/service.ts';
import { describeWithServices } from '../support/services.ts';

const DAY_US = 86_400_000_000;
const dir = mkdtempSync(join(tmpdir(), 'replay-'));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The replay CLI as `npm run replay` starts it, with `stdin` piped in when given. */
function replay(
  args: readonly string[],
  env: Record<string, string>,
  options: { stdin?: string; onStart?: (interrupt: () => void) => void } = {},
): Promise<Run> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--disable-warning=TimeoutNegativeWarning', 'tools/replay.ts', ...args],
    { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  else child.stdin.end();
  options.onStart?.(() => child.kill('SIGINT'));
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

/** `line` read as a JSON event's id and timestamp (µs). */
function idAndTime(line: string): { id: string; us: number } | null {
  try {
    const event = JSON.parse(line) as { id?: unknown; timestamp?: unknown };
    if (typeof event.id !== 'string') return null;
    const us = typeof event.timestamp === 'number' && Number.isSafeInteger(event.timestamp)
      ? event.timestamp
      : typeof event.timestamp === 'string'
      ? parseTimestamp(event.timestamp)
      : null;
    return us === null ? null : { id: event.id, us };
  } catch {
    return null;
  }
}

/** The one offset every input event was moved by (fails if events moved by different ones). */
function oneShift(inputs: readonly string[], published: readonly string[]): number {
  // By id; an id that several lines share (the invalid ones with an empty id) tells nothing.
  const recorded = new Map<string, number | null>();
  for (const line of inputs) {
    const read = idAndTime(line);
    if (read !== null) recorded.set(read.id, recorded.has(read.id) ? null : read.us);
  }
  const shifts = new Set<number>();
  for (const line of published) {
    const read = idAndTime(line);
    const before = read === null ? undefined : recorded.get(read.id);
    if (read !== null && before !== undefined && before !== null) shifts.add(read.us - before);
  }
  expect([...shifts]).toHaveLength(1);
  return [...shifts][0] ?? 0;
}

describeWithServices(['kafka', 'redis'], 'npm run replay on a real broker', ({ kafka, redis }) => {
  let world: World;
  let service: Service | null = null;
  let call: Call = () => Promise.reject(new Error('the service did not start'));
  let env: Record<string, string> = {};

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.url });
    const config = loadConfig({
      KAFKA_BROKERS: kafka.brokers.join(','),
      KAFKA_TOPIC_PREFIX: world.prefix,
      KAFKA_GROUP_ID: world.groupId,
      TOPIC_PARTITIONS: String(PARTITIONS),
      FLUSH_INTERVAL_MS: '100',
      REDIS_URL: redis.url,
      API_KEYS: TEST_KEY,
      PORT: '0',
    });
    ({ service, call } = await startReadyService(config, 'replay-test', TEST_KEY));
    env = {
      KAFKA_BROKERS: kafka.brokers.join(','),
      KAFKA_TOPIC_PREFIX: world.prefix,
      TOPIC_PARTITIONS: String(PARTITIONS),
      PROBE_API_KEY: TEST_KEY,
    };
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await world?.close();
  }, 60_000);

  test(
    'a gzip file and standard input, rebased to now: the endpoints show exactly the replayed traffic',
    async () => {
      // Recorded two days ago: without the rebase, no window of any endpoint would show it.
      const recordedUs = Date.now() * 1000 - 2 * DAY_US;
      const edge = [
        ...generateEvents({
          seed: 16,
          events: 4_000,
          nowUs: recordedUs,
          spanUs: 30 * 60_000_000,
          invalid: 0.02,
          projects: 4,
          edgeShare: 1,
        }),
      ].map(({ line }) => line);
      const functionEdge = [
        ...generateEvents({
          seed: 17,
          events: 600,
          nowUs: recordedUs,
          spanUs: 3_000_000,
          projects: 4,
          edgeShare: 0,
        }),
      ].map(({ line }) => line);
      const gz = join(dir, 'edge-recorded.ndjson.gz');
      writeFileSync(gz, gzipSync(`${edge.join('\n')}\n`));

      const before = Date.now() * 1000;
      const file = await replay([gz, '--rebase', 'now'], env);
      const after = Date.now() * 1000;
      expect(file.stderr).not.toMatch(/\n\s+at /);
      expect(file.code).toBe(0);
      expect(file.stdout).toContain(`published ${edge.length} events`);
      const piped = await replay(
        ['-', '--source', 'function-edge', '--speed', '1', '--rebase', 'now'],
        env,
        { stdin: `${functionEdge.join('\n')}\n` },
      );
      expect(piped.code).toBe(0);
      expect(piped.stdout).toContain(`published ${functionEdge.length} events`);

      const published = [...(await world.sourceMessages()).entries()];
      const ofTopic = (topic: string) =>
        published.filter(([origin]) => origin.startsWith(`${topic}/`)).map(([, value]) => value);
      // Every edge event moved by one offset, so that the newest valid one is now (the invalid
      // ones dated days ahead are not taken for the stream's end).
      const edgeShift = oneShift(edge, ofTopic(world.topics.edge));
      const newest = Math.max(
        ...edge.map((line) => {
          const result = parse(line, 'edge', { nowUs: recordedUs });
          return result.ok ? result.event.timestampUs : 0;
        }),
      );
      expect(newest + edgeShift).toBeGreaterThanOrEqual(before);
      expect(newest + edgeShift).toBeLessThanOrEqual(after);
      // Standard input in real time: its first event now, the rest at their recorded gaps.
      const functionShift = oneShift(functionEdge, ofTopic(world.topics['function-edge']));
      const first = idAndTime(functionEdge[0] ?? '')?.us ?? 0;
      expect(first + functionShift).toBeGreaterThan(after);
      const spanMs = (Math.max(...functionEdge.map((line) => idAndTime(line)?.us ?? 0)) - first) /
        1000;
      console.log(
        `--speed 1: ${(spanMs / 1000).toFixed(2)} s of recorded time played in ` +
          `${(piped.ms / 1000).toFixed(2)} s (process start and broker acks included)`,
      );

      await world.drained(90_000);
      const nowUs = Date.now() * 1000;
      const events: LogEvent[] = [];
      for (const [origin, value] of published) {
        const source = origin.startsWith(`${world.topics.edge}/`) ? 'edge' : 'function-edge';
        const result = parse(value, source, { nowUs });
        if (result.ok) events.push(result.event);
      }
      const document = await (await call('/openapi.json')).json();
      await expectLiveAnswersMatchReference(
        call,
        events,
        queriesFor(events, nowUs),
        responseValidator(document),
      );
    },
    240_000,
  );

  test('a load test reports ingest, latency and errors per endpoint, and freshness', async () => {
    const lines = [
      ...generateEvents({ seed: 18, events: 3_000, nowUs: Date.now() * 1000, projects: 3 }),
    ];
    const path = join(dir, 'edge.ndjson');
    writeFileSync(
      path,
      lines.filter((line) => line.source === 'edge').map((l) => l.line).join('\n'),
    );
    const report = join(dir, 'report.json');
    const run = await replay(
      [
        path,
        '--rate',
        '1000',
        '--probe',
        service?.url ?? '',
        '--probe-rate',
        '30',
        '--report',
        report,
      ],
      env,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`report written to ${report}`);
    const written = JSON.parse(readFileSync(report, 'utf8')) as LoadTestReport;
    expect(Object.keys(written).sort()).toEqual(['endpoints', 'freshness', 'ingest']);
    expect(written.ingest).toMatchObject({ interrupted: false });
    expect(written.ingest.events).toBe(lines.filter((line) => line.source === 'edge').length);
    expect(Object.keys(written.endpoints).sort()).toEqual([
      'functions.invocation-stats',
      'logs.all',
      'usage.api-counts',
    ]);
    for (const figures of Object.values(written.endpoints)) {
      expect(figures.requests).toBeGreaterThan(0);
      expect(figures.errors).toEqual({});
      expect(figures.p50Ms).toBeTypeOf('number');
      expect(figures.p99Ms).toBeGreaterThanOrEqual(figures.p50Ms ?? 0);
    }
    expect(written.freshness.markers).toBeGreaterThan(0);
    expect(written.freshness.seen).toBe(written.freshness.markers);
    expect(written.freshness.p99Ms).toBeGreaterThanOrEqual(written.freshness.p50Ms ?? 0);
  }, 120_000);

  test(
    'Ctrl-C mid-replay: a summary of what was published, and exactly that on the broker',
    async () => {
      const lines = [...generateEvents({ seed: 19, events: 20_000, nowUs: Date.now() * 1000 })]
        .filter((line) => line.source === 'edge')
        .map((line) => line.line);
      const path = join(dir, 'edge-long.ndjson');
      writeFileSync(path, lines.join('\n'));
      const ends = async () => {
        let total = 0;
        for (const entry of await world.admin.fetchTopicOffsets(world.topics.edge)) {
          total += Number(entry.high);
        }
        return total;
      };
      const before = await ends();
      const run = await replay([path, '--rate', '2000'], env, {
        // Once it publishes (its Ctrl-C handler is set by then): a fixed 2 s interrupted a replay
        // still starting on CI's loaded machine, which Node's default SIGINT ends with no code.
        onStart: (interrupt) =>
          void until('the replay to publish', 60_000, async () => (await ends()) > before || null)
            .then(interrupt),
      });
      expect(run.code).toBe(130);
      const published = Number(/interrupted: published (\d+) events/.exec(run.stdout)?.[1]);
      expect(published).toBeGreaterThan(0);
      expect(published).toBeLessThan(lines.length);
      expect((await ends()) - before).toBe(published);
    },
    120_000,
  );

  describe('inputs it cannot read', () => {
    test('a missing file: named, with why, before anything is published, and no stack trace', async () => {
      const missing = join(dir, 'edge-missing.ndjson');
      const run = await replay([missing], env);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`replay: cannot read ${missing}: no such file`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    });

    test('a file that is not gzip: named, and no stack trace', async () => {
      const bad = join(dir, 'edge-bad.ndjson.gz');
      writeFileSync(bad, 'this is not gzip\n');
      const run = await replay([bad], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`replay: ${bad} is not valid gzip`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    });
  });
});
