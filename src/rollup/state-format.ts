/**
 * Which form a stored state is in. A state is written in a compact binary form
 * ({@link ../text/seven-bit.ts}) whose first byte names its aggregate and the version of its
 * layout; states written before it are JSON text, which starts with `[` or `{`, and stay
 * readable. The bytes 0x10 to 0x1f are kept for these formats: one this build does not know was
 * written by a newer version, and is refused with a {@link NewerStateFormatError}, never taken
 * for a corrupt state (which a writer would move aside and start afresh, losing what it held).
 *
 * @example
 * ```ts
 * stateFormat('[3,1,0,0,0]'); // 'json'
 * stateFormat('\x10\x03\x01\x00\x00\x00'); // 0x10
 * stateFormat('\x1f…'); // throws NewerStateFormatError
 * ```
 *
 * @module
 */
import { SevenBitReader } from '../text/seven-bit.ts';
import type { StoredState } from './aggregate.ts';

/** The first byte of each layout of a stored state. */
export const STATE_FORMATS = {
  /** `usage.api-counts`: total and the four families, as unsigned varints. */
  usageCountsV1: 0x10,
  /** `functions.invocation-stats`: counts, times and the quantile sketch. */
  invocationStatsV1: 0x11,
  /**
   * A `logs.all` ring-buffer entry's event, after its head: the answer's row as JSON
   * (`src/rollup/recent-logs.ts`); entries written before it hold the event's text.
   */
  recentLogRowV1: 0x12,
} as const;

/** A format tag of this build. */
export type StateFormat = (typeof STATE_FORMATS)[keyof typeof STATE_FORMATS];

const FIRST_RESERVED = 0x10;
const LAST_RESERVED = 0x1f;

/** Whether `byte` is kept for the formats of stored values (those of this build and newer ones). */
export function isReservedFormat(byte: number): boolean {
  return byte >= FIRST_RESERVED && byte <= LAST_RESERVED;
}

/**
 * A stored state in a format of a newer version of this service: neither corrupt nor readable
 * here. Whoever meets one stops and says so, and upgrading this process is the remedy.
 */
export class NewerStateFormatError extends Error {
  constructor(format: number) {
    super(
      `a stored state is in format 0x${format.toString(16)}, written by a newer version of ` +
        'this service; upgrade this process to read it',
    );
    this.name = 'NewerStateFormatError';
  }
}

const UTF8 = new TextEncoder();

/**
 * The first byte of a stored state, its text read as UTF-8 as {@link SevenBitReader} reads it;
 * NaN when it is empty.
 */
function firstByte(stored: StoredState): number {
  if (typeof stored !== 'string') return stored[0] ?? Number.NaN;
  const code = stored.charCodeAt(0);
  return code < 0x80 ? code : UTF8.encode(stored.slice(0, 2))[0] ?? Number.NaN;
}

/**
 * The form of a stored state: `'json'` (written before the binary forms) or its format tag.
 * Throws {@link NewerStateFormatError} for a tag of a newer version, and an Error for a state
 * that is neither.
 */
export function stateFormat(stored: StoredState): 'json' | StateFormat {
  const first = firstByte(stored);
  if (first === 0x5b || first === 0x7b) return 'json';
  if (
    first === STATE_FORMATS.usageCountsV1 || first === STATE_FORMATS.invocationStatsV1 ||
    first === STATE_FORMATS.recentLogRowV1
  ) return first;
  if (isReservedFormat(first)) throw new NewerStateFormatError(first);
  throw new Error(
    `a stored state must start with a format byte or JSON: got ${
      Number.isNaN(first) ? 'nothing' : `byte ${first}`
    }`,
  );
}

/**
 * A stored state checked to be in `format` (or JSON): what an aggregate's `deserialize` asks
 * first. A state of another aggregate's format is corrupt for this one.
 */
export function expectFormat(
  stored: StoredState,
  format: StateFormat,
  what: string,
): 'json' | 'binary' {
  const found = stateFormat(stored);
  if (found === 'json') return 'json';
  if (found !== format) {
    throw new Error(
      `${what} state must be in format 0x${format.toString(16)}: got 0x${found.toString(16)}`,
    );
  }
  return 'binary';
}

/**
 * The count right after the format byte of a binary state's head (any prefix of its bytes), or
 * null when the head is in another format or too short to say.
 */
export function binaryHeadCount(head: StoredState, format: StateFormat): number | null {
  if (firstByte(head) !== format) return null;
  try {
    return new SevenBitReader(head, 1).unsigned();
  } catch {
    return null;
  }
}
