/**
 * Issue 18: every aggregate is closed under its operations. Arbitrary producer messages, with
 * extreme numbers where the contract has numbers, are parsed; whatever is valid is folded in
 * several flushes (so stored states are read back and merged) into the store; then every stored
 * state must round-trip through its text form, and every answer of every interval must hold
 * finite numbers or null.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { parseInvocationStatsParams } from '../../src/contract/params/invocation-stats.ts';
import { readInvocationStats } from '../../src/endpoints/read/invocation-stats.ts';
import { parse } from '../../src/events/parse.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { MemoryStore } from '../../src/store/memory.ts';

const NOW_US = 1_795_256_130_123_456;
const PROJECT = 'fuzzprojectref000000';
const DAY_US = 86_400_000_000;
/** Generated cases per run; the mutation run asks for fewer (vitest.mutation.config.ts). */
const RUNS = Number(process.env.FOLD_FUZZ_RUNS ?? 100);

/** Doubles from the whole range, with the usual suspects made likely. */
const extremeNumber = fc.oneof(
  fc.double({ min: 0, max: Number.MAX_VALUE, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, Number.MIN_VALUE, 1e-7, 1e-6, 0.5, 1e9, 1e15, 2 ** 53, 1e300, 1e308),
);

const functionEdgeMessage = fc.record({
  id: fc.string({ minLength: 1, maxLength: 8 }),
  timestamp: fc.integer({ min: NOW_US - 8 * DAY_US, max: NOW_US }),
  metadata: fc.array(
    fc.record({
      project_ref: fc.constant(PROJECT),
      // Free text, lone surrogates included (valid JSON, no valid store key).
      function_id: fc.option(
        fc.oneof(
          fc.constantFrom('f1', 'f2', '', '\ud800', 'a\udfffb', '{x}:y'),
          fc.string({ maxLength: 8 }),
        ),
        { nil: null },
      ),
      execution_time_ms: fc.option(extremeNumber, { nil: null }),
      response: fc.array(
        fc.record({ status_code: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }) }),
        { minLength: 0, maxLength: 4 },
      ),
    }),
    { minLength: 1, maxLength: 3 },
  ),
}).map((event) => JSON.stringify(event));

function isFiniteOrNull(value: unknown): boolean {
  return value === null || (typeof value === 'number' && Number.isFinite(value));
}

test('folded, stored, read back and merged, every state round-trips and every answer is finite or null', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(functionEdgeMessage, { minLength: 1, maxLength: 6 }), {
        minLength: 1,
        maxLength: 4,
      }),
      async (flushes) => {
        const store = new MemoryStore({ nowMs: () => Math.floor(NOW_US / 1000) });
        const unreadable: unknown[] = [];
        const writer = new PartitionWriter({
          store,
          stream: 'fuzz/0',
          nowUs: () => NOW_US,
          onUnreadable: (state) => unreadable.push(state),
        });
        await writer.open();
        const keys = new Set<string>();
        let offset = 0;
        for (const messages of flushes) {
          const fold = new Fold('fuzz/0');
          for (const message of messages) {
            const result = parse(message, 'function-edge', { nowUs: NOW_US });
            if (result.ok) {
              await writer.loadWatermarks([result.event.project]);
              fold.add(result.event, offset, NOW_US);
            }
            offset += 1;
          }
          const delta = fold.take();
          for (const { states } of delta.projects.values()) {
            for (const { address } of states) keys.add(address);
          }
          await writer.flush(delta, offset);
        }
        const stored = await store.readBuckets([...keys]);
        stored.flat().forEach((text) => {
          const state = invocationStats.deserialize(text);
          const again = invocationStats.serialize(state);
          expect(invocationStats.serialize(invocationStats.deserialize(again))).toBe(again);
        });
        // One interval per grain (second, minute, hour, day), all functions and one.
        for (const interval of ['5min', '1hr', '1day', '7day']) {
          for (const fn of ['', 'f1']) {
            const params = parseInvocationStatsParams(
              new URLSearchParams({ project: PROJECT, interval, function_id: fn }),
            );
            if (!params.ok) throw new Error(params.error.message);
            const context = {
              store,
              nowUs: NOW_US,
              maxFutureSkewUs: 300_000_000,
              onUnreadable: (state: unknown) => unreadable.push(state),
            };
            for (const row of await readInvocationStats(context, params.params)) {
              for (const value of Object.values(row)) expect(isFiniteOrNull(value)).toBe(true);
            }
          }
        }
        // Every state written was read back: none was skipped or moved aside.
        expect(unreadable).toEqual([]);
      },
    ),
    { numRuns: RUNS },
  );
});
