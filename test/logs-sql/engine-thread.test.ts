/**
 * The engine's thread: its time limit counts a job's own work, not the thread's start (a new
 * thread loads two WebAssembly modules first); a job past it ends the thread, and the next job is
 * answered by a new one. Where a test needs a job not to be timed, it freezes the limit's timer
 * (fake `setTimeout`) rather than hoping the machine is fast enough.
 */
import { afterEach, expect, test, vi } from 'vitest';
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

test('a new thread is timed from when it is ready: its start never counts against the limit', async () => {
  // The limit's clock is frozen while the thread starts: time moves only when the test says. A
  // timer set as the job arrives (rather than once the thread is ready) would fire below.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const fresh = engine(100);
    const planned = fresh.plan('select count(*) as n from auth_logs', NOW_US);
    // The thread cannot be ready yet: it says so in a message, which no synchronous step delivers.
    vi.advanceTimersByTime(60_000);
    const plan = await planned;
    expect(await fresh.run(plan, rows, 1_000_000)).toEqual({ rows: [{ n: 6 }], truncated: false });
  } finally {
    vi.useRealTimers();
  }
});

test('a job past the limit ends the thread; the next job is answered by a new one', async () => {
  const bounded = engine(200);
  const slow = await bounded.plan(
    `select count(*) as n from auth_logs where event_message like '%${'a'.repeat(5_000)}b'`,
    NOW_US,
  );
  await expect(bounded.run(slow, rows, 1_000_000)).rejects.toBeInstanceOf(SqlTimeout);
  // The new thread's answer is not a race against the clock: the limit's timer is frozen now.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    const plan = await bounded.plan('select count(*) as n from auth_logs', NOW_US);
    const answer = await bounded.run(plan, rows, 1_000_000);
    expect(answer).toEqual({ rows: [{ n: 6 }], truncated: false });
  } finally {
    vi.useRealTimers();
  }
});
