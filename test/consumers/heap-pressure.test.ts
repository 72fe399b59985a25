/**
 * Issue 33, item 5: a consumer whose heap fills slows down rather than die. A consumer process
 * started with a V8 heap far too small for what a catch-up of this backlog folds at full speed
 * (`NODE_OPTIONS=--max-old-space-size=...`) must press its heap guard (batches held back, cached
 * parts dropped: consumers/heap-guard.ts), keep running, and fold every event exactly once: the
 * answers equal the reference evaluator. What it showed: docs/benchmarks-history.md, "Memory of a
 * consumer: heap flags, the heap's contents, 30 minutes flat, backpressure".
 */
import { type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, exited, type World } from './harness.ts';

/** The heap the consumer gets: room for its code and a little more, not for a catch-up. */
export const SMALL_HEAP_FLAGS = '--max-old-space-size=64 --max-semi-space-size=2';
/** How many of the consumer's last lines a failure shows. */
const LINES_SHOWN = 30;

describeWithServices(['kafka', 'redis'], 'a consumer under heap pressure', ({ kafka, redis }) => {
  let world: World;
  let consumer: ChildProcess | null = null;

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.url });
  }, 120_000);

  afterAll(async () => {
    if (consumer !== null) {
      consumer.kill('SIGTERM');
      await exited(consumer);
    }
    await world?.close();
  }, 60_000);

  test(
    'holds batches back and folds every event exactly, rather than run out of memory',
    async () => {
      const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 20_000);
      // The whole backlog first: the consumer catches up at full speed.
      await world.publish(stream.lines);
      const child = world.consumerProcess(
        { NODE_OPTIONS: SMALL_HEAP_FLAGS, FLUSH_EVENTS: '5000', LOG_LEVEL: 'warn' },
        'node',
        { stdout: 'pipe' },
      );
      consumer = child;
      const pressed: string[] = [];
      const exits: string[] = [];
      // Its last warnings, for a failure to show (CI once saw it store 12,424 of 40,000 offsets
      // in 300 s, with nothing to say why).
      const said: string[] = [];
      child.once('exit', (code, signal) => exits.push(`${signal ?? code}`));
      if (child.stdout === null) throw new Error('the consumer has no standard output');
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.includes('the heap is pressed')) pressed.push(line);
        said.push(line);
        if (said.length > LINES_SHOWN) said.shift();
      });
      await world.drained(300_000).catch((error: unknown) => {
        const why = error instanceof Error ? error.message : String(error);
        const lines = said.length === 0 ? '(none)' : said.join('\n');
        const exit = exits.length === 0 ? 'running' : `exited ${exits.join(', ')}`;
        throw new Error(`${why}; the consumer (${exit}) last said:\n${lines}`, { cause: error });
      });
      expect(exits, 'the consumer exited').toEqual([]);
      expect(pressed.length, 'the heap guard never pressed').toBeGreaterThan(0);
      console.log(`heap pressure: ${pressed[0]}`);
      // Read at the time of reading, not the stream's: a consumer held back folds minutes after
      // the stream's `nowUs`, and judges each event's lateness by its own clock (an event too late
      // for a grain is not written there, keys.ts), so the store answers exactly for now, not for a
      // past instant. Read at the stream's `nowUs` after a fold 15 minutes late, a
      // `functions.invocation-stats` `1hr` row differs by one (measured; this test once failed so
      // under a load average of 30).
      await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
    },
    420_000,
  );
});
