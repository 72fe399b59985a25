/**
 * What a replay publishes: timestamps rebased to end now (or to start now in real time), ids
 * made distinct per repeat, due times of the recorded pace or a fixed rate, and lines that are
 * not rewritable events published as they are. Clocks are injected.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReplayFlags, type ReplayCommand } from '../../tools/replay/flags.ts';
import { readCounters } from '../../tools/replay/input.ts';
import { play, type PlayCounters, scanSpan } from '../../tools/replay/play.ts';
import type { SourcedLine } from '../../tools/replay/publish.ts';

/** 2026-11-21T10:15:30Z. */
const T0 = 1_795_256_130_000_000;
const NOW_US = T0 + 86_400_000_000;
const dir = mkdtempSync(join(tmpdir(), 'replay-play-'));
const path = join(dir, 'function-edge.ndjson');
writeFileSync(
  path,
  [
    JSON.stringify({ id: 'a', timestamp: T0, metadata: [] }),
    JSON.stringify({ id: 'b', timestamp: '2026-11-21T10:15:31.5Z', metadata: [] }),
    'not json',
    JSON.stringify({ id: 'c', timestamp: T0 + 4_000_000, metadata: [] }),
  ].join('\n'),
);

async function played(args: string[]) {
  const command = parseReplayFlags([path, ...args]) as ReplayCommand;
  const counters: PlayCounters = { played: 0, notRewritten: 0 };
  const span = command.rebase && !(command.pace.kind === 'speed' && command.pace.factor === 1)
    ? await scanSpan(command)
    : null;
  const lines: SourcedLine[] = [];
  for await (
    const line of play({
      command,
      span,
      nowUs: () => NOW_US,
      clockMs: () => 1_000,
      read: readCounters(),
      played: counters,
    })
  ) lines.push(line);
  const events = lines.map(({ line, dueMs }) => {
    try {
      const event = JSON.parse(line) as { id: string; timestamp: number | string };
      return { id: event.id, timestamp: event.timestamp, dueMs };
    } catch {
      return { line, dueMs };
    }
  });
  return { events, counters };
}

describe('play', () => {
  it('publishes the lines as they are without a rebase, a repeat or a pace', async () => {
    const { events, counters } = await played([]);
    expect(events).toEqual([
      { id: 'a', timestamp: T0, dueMs: undefined },
      { id: 'b', timestamp: '2026-11-21T10:15:31.5Z', dueMs: undefined },
      { line: 'not json', dueMs: undefined },
      { id: 'c', timestamp: T0 + 4_000_000, dueMs: undefined },
    ]);
    // Nothing is read as an event when nothing is rewritten.
    expect(counters).toEqual({ played: 4, notRewritten: 0 });
  });

  it("rebases so that the stream ends now, keeping its shape and each timestamp's form", async () => {
    const { events, counters } = await played(['--rebase', 'now']);
    expect(events).toEqual([
      { id: 'a', timestamp: NOW_US - 4_000_000, dueMs: undefined },
      { id: 'b', timestamp: '2026-11-22T10:15:27.500000Z', dueMs: undefined },
      { line: 'not json', dueMs: undefined },
      { id: 'c', timestamp: NOW_US, dueMs: undefined },
    ]);
    expect(counters).toEqual({ played: 4, notRewritten: 1 });
  });

  it('gives each repeat new ids; unpaced, repeats land on the same times', async () => {
    const { events } = await played(['--loop', '2', '--rebase', 'now']);
    expect(events.map((event) => event.id ?? event.line)).toEqual([
      'a',
      'b',
      'not json',
      'c',
      'a-r1',
      'b-r1',
      'not json',
      'c-r1',
    ]);
    expect(events[4]?.timestamp).toBe(events[0]?.timestamp);
  });

  it('paces at the recorded gaps divided by --speed', async () => {
    const { events } = await played(['--speed', '2']);
    expect(events.map((event) => event.dueMs)).toEqual([1_000, 1_750, undefined, 3_000]);
  });

  it('in real time, anchors the first event now and each repeat follows the previous', async () => {
    const { events } = await played(['--speed', '1', '--rebase', 'now', '--loop', '2']);
    expect(events.filter((event) => event.id !== undefined)).toEqual([
      { id: 'a', timestamp: NOW_US, dueMs: 1_000 },
      { id: 'b', timestamp: '2026-11-22T10:15:31.500000Z', dueMs: 2_500 },
      { id: 'c', timestamp: NOW_US + 4_000_000, dueMs: 5_000 },
      { id: 'a-r1', timestamp: NOW_US + 4_000_000, dueMs: 5_000 },
      { id: 'b-r1', timestamp: '2026-11-22T10:15:35.500000Z', dueMs: 6_500 },
      { id: 'c-r1', timestamp: NOW_US + 8_000_000, dueMs: 9_000 },
    ]);
  });

  it('paces a fixed rate by position', async () => {
    const { events } = await played(['--rate', '4']);
    expect(events.map((event) => event.dueMs)).toEqual([1_000, 1_250, 1_500, 1_750]);
  });
});

describe('scanSpan', () => {
  it('takes the span of the stream, not of an event alone in time (a bad clock)', async () => {
    const outliers = join(dir, 'edge-outliers.ndjson');
    writeFileSync(
      outliers,
      [
        JSON.stringify({ id: 'early', timestamp: T0 - 30 * 86_400_000_000 }),
        ...Array.from(
          { length: 50 },
          (_, i) => JSON.stringify({ id: `e${i}`, timestamp: T0 + i * 60_000_000 }),
        ),
        JSON.stringify({ id: 'ahead', timestamp: T0 + 10 * 86_400_000_000 }),
        // Within 5 minutes of the last of the stream: part of it.
        JSON.stringify({ id: 'late', timestamp: T0 + 49 * 60_000_000 + 299_000_000 }),
      ].join('\n'),
    );
    const command = parseReplayFlags([outliers, '--rebase', 'now']) as ReplayCommand;
    expect(await scanSpan(command)).toEqual({
      firstUs: T0,
      lastUs: T0 + 49 * 60_000_000 + 299_000_000,
    });
  });
});
