/**
 * The engine's thread: its time limit counts a job's own work, not the thread's start (a new
 * thread loads two WebAssembly modules first), so even the smallest limit answers; a job past it
 * ends the thread, and the next job is answered by a new one.
 */
import { afterEach, expect, test } from 'vitest';
import { EngineThread } from '../../src/logs-sql/engine-thread.ts';
import { SqlTimeout } from '../../src/logs-sql/sql-refusal.ts';

const NOW_US = 1_795_256_130_123_456;
const engines: EngineThread[] = [];
afterEach(() => {
  for (const engine of engines.splice(0)) engine.close();
});

function engine(timeoutMs: number): EngineThread {
  const made = new EngineThread({ timeoutMs, heapBytes: 64 * 1_048_576 });
  engines.push(made);
  return made;
}

const encoder = new TextEncoder();
const rows = Array.from({ length: 6 }, (_, i) => ({
  id: `r${i}`,
  timestampUs: NOW_US - i,
  json: encoder.encode(JSON.stringify({ event_message: 'a'.repeat(20_000) })),
}));

test('the smallest time limit still answers: a new thread is timed from when it is ready', async () => {
  const fast = engine(100);
  const plan = await fast.plan('select count(*) as n from auth_logs', NOW_US);
  expect(await fast.run(plan, rows, 1_000_000)).toEqual({ rows: [{ n: 6 }], truncated: false });
});

test('a job past the limit ends the thread; the next job is answered by a new one', async () => {
  const bounded = engine(200);
  const slow = await bounded.plan(
    `select count(*) as n from auth_logs where event_message like '%${'a'.repeat(5_000)}b'`,
    NOW_US,
  );
  await expect(bounded.run(slow, rows, 1_000_000)).rejects.toBeInstanceOf(SqlTimeout);
  const plan = await bounded.plan('select count(*) as n from auth_logs', NOW_US);
  expect(await bounded.run(plan, rows, 1_000_000)).toEqual({ rows: [{ n: 6 }], truncated: false });
});
