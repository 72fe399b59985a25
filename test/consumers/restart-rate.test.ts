import { expect, test } from 'vitest';
import { MAX_RESTARTS_PER_MINUTE, RestartRate } from '../../consumers/restart-rate.ts';

test('a few restarts a minute are a hiccup; more are a loop, until a minute passes', () => {
  let nowMs = 1_000_000;
  const restarts = new RestartRate(() => nowMs);
  for (let i = 0; i < MAX_RESTARTS_PER_MINUTE; i++) {
    restarts.record();
    nowMs += 1_000;
  }
  expect(restarts.excessive()).toBeNull();
  restarts.record();
  expect(restarts.excessive()).toBe(
    'the consumer group restarted 4 times in the last minute (more than 3 is a loop: see the ' +
      'errors logged)',
  );
  // The first restart leaves the window.
  nowMs += 57_000;
  expect(restarts.excessive()).toBeNull();
});

test('restarts spread over minutes never add up', () => {
  let nowMs = 0;
  const restarts = new RestartRate(() => nowMs);
  for (let i = 0; i < 100; i++) {
    restarts.record();
    expect(restarts.excessive()).toBeNull();
    nowMs += 20_001;
  }
});
