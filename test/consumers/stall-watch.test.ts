import { expect, test } from 'vitest';
import { STALL_MS, StallWatch } from '../../consumers/stall-watch.ts';

test('a stored offset standing still for a minute while the lag grows is a stall', () => {
  let nowMs = 0;
  const watch = new StallWatch(() => nowMs);
  watch.observe([{ stream: 'logs.edge/0', stored: 10, events: 5 }]);
  nowMs += STALL_MS - 1;
  watch.observe([{ stream: 'logs.edge/0', stored: 10, events: 50 }]);
  expect(watch.stalled()).toEqual([]);
  nowMs += 1;
  expect(watch.stalled()).toEqual([
    'logs.edge/0 has not advanced from offset 10 in 60 s while its lag grew from 5 to 50 events',
  ]);
  // It moves again.
  watch.observe([{ stream: 'logs.edge/0', stored: 11, events: 49 }]);
  expect(watch.stalled()).toEqual([]);
});

test('a quiet partition (no lag growing) and one that advances are no stall', () => {
  let nowMs = 0;
  const watch = new StallWatch(() => nowMs);
  for (let i = 0; i < 10; i++) {
    watch.observe([
      { stream: 'logs.edge/0', stored: 10, events: 0 },
      { stream: 'logs.edge/1', stored: 100 * i, events: 1_000 + i },
    ]);
    nowMs += STALL_MS;
  }
  expect(watch.stalled()).toEqual([]);
});

test('a partition no longer held is forgotten', () => {
  let nowMs = 0;
  const watch = new StallWatch(() => nowMs);
  watch.observe([{ stream: 'logs.edge/0', stored: 10, events: 5 }]);
  nowMs += STALL_MS;
  watch.observe([{ stream: 'logs.edge/0', stored: 10, events: 9 }]);
  watch.observe([]);
  expect(watch.stalled()).toEqual([]);
});
