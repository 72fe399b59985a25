/**
 * What a replay publishes, line by line: the inputs read as they stream, repeated `--loop`
 * times, each line's timestamp shifted (`--rebase now`) and its id made distinct per repeat, and
 * each line's due time (`--rate`, `--speed`). A line that is not an event this can rewrite (not
 * a JSON object with a usable `timestamp`) is published as it is, and counted.
 *
 * @module
 */
import type { Readable } from 'node:stream';
import { formatTimestamp, parseTimestamp } from '../../src/time/timestamp.ts';
import { type Pace, realTime, type ReplayCommand } from './flags.ts';
import { type ReadCounters, readLines } from './input.ts';
import type { SourcedLine } from './publish.ts';

/** An event line, read far enough to move it in time. */
interface EventLine {
  readonly event: Record<string, unknown>;
  readonly timestampUs: number;
  /** Whether the timestamp was written as RFC 3339 text (it is written back the same way). */
  readonly text: boolean;
}

/** Reads `line` as an event with a usable timestamp; null when it is not one. */
export function readEventLine(line: string): EventLine | null {
  let event: unknown;
  try {
    event = JSON.parse(line);
  } catch {
    return null;
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return null;
  const record = event as Record<string, unknown>;
  const timestamp = record.timestamp;
  if (typeof timestamp === 'number' && Number.isSafeInteger(timestamp)) {
    return { event: record, timestampUs: timestamp, text: false };
  }
  if (typeof timestamp === 'string') {
    const us = parseTimestamp(timestamp);
    return us === null ? null : { event: record, timestampUs: us, text: true };
  }
  return null;
}

/**
 * `line` moved by `shiftUs` and, for a repeat (`loop` > 0), with `-r<loop>` appended to its
 * string id; null when the shifted time cannot be written (beyond the safe range).
 */
export function rewriteEventLine(read: EventLine, shiftUs: number, loop: number): string | null {
  const timestampUs = read.timestampUs + shiftUs;
  if (!Number.isSafeInteger(timestampUs)) return null;
  const event = { ...read.event };
  event.timestamp = read.text ? formatTimestamp(timestampUs) : timestampUs;
  if (loop > 0 && typeof event.id === 'string') event.id = `${event.id}-r${loop}`;
  return JSON.stringify(event);
}

/** The recorded time span of the inputs, from a first pass (files only). */
export interface Span {
  readonly firstUs: number;
  readonly lastUs: number;
}

/**
 * An event further than this from every other is taken for a clock error (a producer's bad
 * clock, an event dead-lettered as future or too old) and does not set where the stream
 * starts or ends: the service's own future skew.
 */
export const LONE_EVENT_US = 5 * 60_000_000;

/** How many of the earliest and of the latest times a scan keeps to find the span's ends. */
const EDGE_TIMES = 1024;

/**
 * The latest time in `times` (sorted descending) that has another within {@link LONE_EVENT_US};
 * the latest of all when every one is alone.
 */
function settledEnd(times: readonly number[], sign: 1 | -1): number | undefined {
  for (let i = 0; i + 1 < times.length; i++) {
    const here = times[i] ?? 0;
    if (sign * (here - (times[i + 1] ?? 0)) <= LONE_EVENT_US) return here;
  }
  return times[0];
}

/** The `EDGE_TIMES` largest values offered (by `sign`: 1 the largest, -1 the smallest). */
class Extremes {
  readonly #sign: 1 | -1;
  /** A heap whose root is the least extreme value kept. */
  readonly #heap: number[] = [];

  constructor(sign: 1 | -1) {
    this.#sign = sign;
  }

  offer(value: number): void {
    const heap = this.#heap;
    const key = this.#sign * value;
    if (heap.length === EDGE_TIMES) {
      if (key <= (heap[0] ?? 0)) return;
      heap[0] = key;
      this.#down(0);
      return;
    }
    heap.push(key);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] ?? 0) <= (heap[i] ?? 0)) break;
      [heap[parent], heap[i]] = [heap[i] ?? 0, heap[parent] ?? 0];
      i = parent;
    }
  }

  #down(start: number): void {
    const heap = this.#heap;
    for (let i = start;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < heap.length && (heap[left] ?? 0) < (heap[least] ?? 0)) least = left;
      if (right < heap.length && (heap[right] ?? 0) < (heap[least] ?? 0)) least = right;
      if (least === i) return;
      [heap[least], heap[i]] = [heap[i] ?? 0, heap[least] ?? 0];
      i = least;
    }
  }

  /** The most extreme value that is not alone (see {@link settledEnd}). */
  settled(): number | undefined {
    const values = [...this.#heap].sort((a, b) => b - a).map((key) => this.#sign * key);
    return settledEnd(values, this.#sign);
  }
}

/**
 * Where the inputs' recorded time starts and ends (null when no line has a usable timestamp),
 * read in one streaming pass; events alone in time, more than {@link LONE_EVENT_US} from every
 * other, are not taken for an end.
 */
export async function scanSpan(command: ReplayCommand): Promise<Span | null> {
  const latest = new Extremes(1);
  const earliest = new Extremes(-1);
  const ignored = { bytes: 0, lines: 0, blank: 0, tooLong: 0 };
  for (const input of command.inputs) {
    for await (const line of readLines(input, ignored)) {
      const read = readEventLine(line);
      if (read === null) continue;
      latest.offer(read.timestampUs);
      earliest.offer(read.timestampUs);
    }
  }
  const lastUs = latest.settled();
  const firstUs = earliest.settled();
  return lastUs === undefined || firstUs === undefined ? null : { firstUs, lastUs };
}

/** What playing has met, besides what reading counts. */
export interface PlayCounters {
  /** Lines played (every loop), rewritten or not. */
  played: number;
  /** Lines published as they are: not a JSON object with a usable `timestamp`. */
  notRewritten: number;
}

/** Options of {@link play}. */
export interface PlayOptions {
  readonly command: ReplayCommand;
  /** From {@link scanSpan}, when the stream must end now (a rebase that is not in real time). */
  readonly span: Span | null;
  /** The clock, Unix µs (the rebase target). */
  readonly nowUs: () => number;
  /** The pacing clock, ms (`performance.now`). */
  readonly clockMs: () => number;
  readonly read: ReadCounters;
  readonly played: PlayCounters;
  readonly stdin?: Readable;
}

/**
 * The lines to publish, with their due times. A rebase ends the stream now (or, at `--speed 1`,
 * anchors its first event now); in real time each repeat follows the previous one, otherwise
 * each repeat lands on the same times, with new ids.
 */
export async function* play(options: PlayOptions): AsyncGenerator<SourcedLine> {
  const { command } = options;
  const rewrite = command.rebase || command.loops > 1;
  const timed = command.pace.kind === 'speed';
  const startedMs = options.clockMs();
  const startedUs = options.nowUs();
  // Set by the first event in real time: where the stream's own time starts.
  let anchorUs: number | null = null;
  let shiftUs = command.rebase && options.span !== null && !realTime(command.pace)
    ? startedUs - options.span.lastUs
    : 0;
  // The recorded length of one play, for repeats in real time.
  let loopSpanUs = options.span === null ? 0 : options.span.lastUs - options.span.firstUs;
  let lastSeenUs = Number.NEGATIVE_INFINITY;
  let firstSeenUs = Number.POSITIVE_INFINITY;
  let index = 0;
  for (let loop = 0; loop < command.loops; loop++) {
    // Repeats are paced one after the other; their times follow on only in real time.
    const dueShiftUs = loop * loopSpanUs;
    const stampShiftUs = realTime(command.pace) ? dueShiftUs : 0;
    for (const input of command.inputs) {
      for await (const line of readLines(input, options.read, options.stdin)) {
        const read = rewrite || timed ? readEventLine(line) : null;
        let text = line;
        let dueMs: number | undefined;
        if (read === null) {
          if (rewrite || timed) options.played.notRewritten += 1;
        } else {
          const recordedUs = read.timestampUs + dueShiftUs;
          if (loop === 0) {
            firstSeenUs = Math.min(firstSeenUs, read.timestampUs);
            lastSeenUs = Math.max(lastSeenUs, read.timestampUs);
          }
          if (anchorUs === null) {
            anchorUs = recordedUs;
            if (command.rebase && realTime(command.pace)) shiftUs = startedUs - anchorUs;
          }
          if (timed) dueMs = startedMs + dueAfterMs(command.pace, recordedUs - anchorUs);
          if (rewrite) {
            const moved = rewriteEventLine(read, shiftUs + stampShiftUs, loop);
            if (moved === null) options.played.notRewritten += 1;
            else text = moved;
          }
        }
        if (command.pace.kind === 'rate') {
          dueMs = startedMs + (index / command.pace.eventsPerSecond) * 1000;
        }
        index += 1;
        options.played.played += 1;
        yield { source: input.source, line: text, ...(dueMs === undefined ? {} : { dueMs }) };
      }
    }
    // Standard input has no first pass: its span is known once it has been read.
    if (loop === 0 && options.span === null && Number.isFinite(firstSeenUs)) {
      loopSpanUs = lastSeenUs - firstSeenUs;
    }
  }
}

/** When an event `elapsedUs` of recorded time after the first is due, in ms after the start. */
function dueAfterMs(pace: Pace, elapsedUs: number): number {
  if (pace.kind !== 'speed') return 0;
  return Math.max(0, elapsedUs) / 1000 / pace.factor;
}
