import { expect, test } from 'vitest';
import { widenProducedSpan } from '../../consumers/produced-span.ts';

test('a flush keeps the oldest and the newest Kafka timestamp; unusable ones change nothing', () => {
  const span = { oldestProducedMs: null, newestProducedMs: null };
  for (const timestamp of ['1700000000500', undefined, '1700000000100', 'x', '1700000000900']) {
    widenProducedSpan(span, timestamp);
  }
  expect(span).toEqual({
    oldestProducedMs: 1_700_000_000_100,
    newestProducedMs: 1_700_000_000_900,
  });
});
