import { describe, expect, test } from 'vitest';
import { answerEndpoint } from '../../src/endpoints/registry.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { edgeEvent, us } from '../fixtures/events.ts';

describe('the recent-logs ring buffer', () => {
  const nowUs = us('2026-11-21T10:15:30Z');
  const at = us('2026-11-21T10:15:00.123456Z');
  // Ties on timestamp, on timestamp and id (duplicates told apart only by arrival), and ids
  // beyond U+FFFF, whose UTF-16 order differs from their UTF-8 byte order.
  const events = [
    edgeEvent({ at, id: 'b', message: 'first b' }),
    edgeEvent({ at, id: 'a', message: 'only a' }),
    edgeEvent({ at, id: 'b', message: 'second b' }),
    edgeEvent({ at, id: '\u{1F600}', message: 'emoji' }),
    edgeEvent({ at, id: '\uFFFD', message: 'replacement character' }),
    edgeEvent({ at: at + 1, id: 'a', message: 'newest' }),
    edgeEvent({ at: at - 1, id: 'z', message: 'oldest' }),
  ];

  async function read(capacity: number, query: string) {
    const store = new MemoryStore({ nowMs: () => nowUs / 1000 });
    const writer = new PartitionWriter({
      store,
      stream: 'logs.edge/0',
      nowUs: () => nowUs,
      recentLogsCapacity: capacity,
    });
    await writer.open();
    await writer.loadWatermarks(events.map((event) => event.project));
    const fold = new Fold('logs.edge/0');
    events.forEach((event, offset) => fold.add(event, offset, nowUs));
    await writer.flush(fold.take(), events.length);
    const context = { store, nowUs, maxFutureSkewUs: 300_000_000 };
    return answerEndpoint('logs.all', new URLSearchParams(query), context);
  }

  test('orders ties exactly as the reference evaluator: id bytes descending, then arrival', async () => {
    const query = 'project=abcdefghijklmnopqrst&project_tier=FREE';
    const answer = await read(10_000, query);
    const expected = evaluateEndpoint('logs.all', events, new URLSearchParams(query), nowUs);
    expect(answer).toEqual(expected);
    if (!answer.ok) throw new Error('refused');
    expect(answer.rows.map((row) => row.event_message)).toEqual([
      'newest',
      'emoji',
      'replacement character',
      'first b',
      'second b',
      'only a',
      'oldest',
    ]);
  });

  test('keeps only the newest entries beyond its capacity', async () => {
    const answer = await read(3, 'project=abcdefghijklmnopqrst&project_tier=FREE');
    if (!answer.ok) throw new Error('refused');
    expect(answer.rows.map((row) => row.event_message)).toEqual([
      'newest',
      'emoji',
      'replacement character',
    ]);
  });
});
