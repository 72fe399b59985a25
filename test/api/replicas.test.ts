/**
 * Issue 10: API replicas are stateless, "run as many as needed". Three API processes take HTTP
 * ingest for the same projects at the same time, into one Redis and into a Redis Cluster: every
 * ingest call is answered 202, and every count equals the reference evaluator (before parts,
 * about half of all counts were lost while every call answered 202).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RollupStore } from '../../src/store/port.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { describeOnRedisStores, emptyStore, openStore, storeEnv } from '../support/store-target.ts';
import { type ChildService, embeddedEnv, startChild, untilReady } from './helpers/child.ts';

const REPLICAS = 3;
const LINES_PER_CALL = 50;

describeOnRedisStores([], 'three API processes folding HTTP ingest at once', (_, target) => {
  const replicas: ChildService[] = [];
  let store: RollupStore | null = null;
  const nowUs = Date.now() * 1000;
  const stream = generatedStream(nowUs, 3_000);

  beforeAll(async () => {
    await emptyStore(target);
    store = await openStore(target);
    const env = embeddedEnv(storeEnv(target));
    const started = await Promise.all(
      Array.from({ length: REPLICAS }, () =>
        startChild(
          process.execPath,
          ['--disable-warning=TimeoutNegativeWarning', 'service/main.ts', '--role', 'api'],
          env,
        )),
    );
    replicas.push(...started);
    // Traffic once each is ready, as behind a load balancer: before its store is reached, a
    // replica answers ingest 503 ("send them again"), which a client would have to retry.
    await Promise.all(started.map((replica) => untilReady(replica)));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await store?.close();
  });

  test('every call is answered 202 and every count is exact', async () => {
    // Calls of both sources, each project's events spread over every replica, all at once.
    const calls: { source: string; body: string }[] = [];
    for (const source of ['edge', 'function-edge'] as const) {
      // Lines that are not even JSON objects make a call's body malformed (a 400 of its own).
      const lines = stream.lines.filter((line) =>
        line.source === source && line.line.startsWith('{')
      )
        .map(({ line }) => line);
      for (let i = 0; i < lines.length; i += LINES_PER_CALL) {
        calls.push({ source, body: lines.slice(i, i + LINES_PER_CALL).join('\n') });
      }
    }
    const answers = await Promise.all(calls.map(async ({ source, body }, i) => {
      const replica = replicas[i % REPLICAS];
      if (replica === undefined) throw new Error('no replica');
      const response = await fetch(`${replica.url}/api/ingest/${source}`, {
        method: 'POST',
        headers: { 'X-API-KEY': replica.key, 'Content-Type': 'application/x-ndjson' },
        body,
      });
      return { status: response.status, body: await response.text() };
    }));
    let accepted = 0;
    for (const answer of answers) {
      // A refused call is told with what the replicas logged about it.
      const told = answer.status === 202
        ? answer.body
        : `${answer.body}\n${replicas.map((replica) => replica.output()).join('\n')}`;
      expect(answer.status, told).toBe(202);
      accepted += (JSON.parse(answer.body) as { accepted: number }).accepted;
    }
    expect(accepted).toBe(stream.events.length);
    if (store === null) throw new Error('no store');
    await expectStoreMatchesReference(store, stream.events, Date.now() * 1000, 60);
  }, 180_000);
});
