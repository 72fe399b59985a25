/**
 * One line of V8's `--trace-gc-nvp` output, as `bench:consumer` reads it: when the collection
 * ran, what was allocated since the one before, what it promoted to the old generation, and
 * whether it was a scavenge. V8 prints the allocation as an unsigned difference of counters, which
 * can wrap to near 2^64 (it did in a run that took a heap snapshot, 1.8 × 10^19 bytes over 600,000
 * events): such a figure is not a count of bytes, and is read as unknown (NaN), which makes a
 * window's total unknown too.
 *
 * @example
 * ```ts
 * gcTraceLine('[123:0x1]    4015 ms: pause=1.2 ... gc=s ... allocated=524288 promoted=4096 ...');
 * // { ms: 4015, allocatedBytes: 524288, promotedBytes: 4096, scavenge: true }
 * ```
 *
 * @module
 */

/** One collection of the trace. */
export interface GcTraceLine {
  /** Milliseconds since the isolate started. */
  readonly ms: number;
  /** Bytes allocated since the collection before; NaN where V8's figure wrapped. */
  readonly allocatedBytes: number;
  /** Bytes this collection promoted to the old generation; NaN where V8's figure wrapped. */
  readonly promotedBytes: number;
  readonly scavenge: boolean;
}

const LINE = /^\[\d+:[^\]]*\]\s+(\d+) ms: .* allocated=(\d+) promoted=(\d+) /;

/** A byte count of the trace, NaN where it is beyond any real count (a wrapped difference). */
function bytes(text: string): number {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : Number.NaN;
}

/** The collection `line` traces, or null for any other line. */
export function gcTraceLine(line: string): GcTraceLine | null {
  const match = LINE.exec(line);
  if (match === null) return null;
  return {
    ms: Number(match[1]),
    allocatedBytes: bytes(match[2] as string),
    promotedBytes: bytes(match[3] as string),
    scavenge: line.includes(' gc=s '),
  };
}
