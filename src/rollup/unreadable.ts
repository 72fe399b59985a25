/**
 * What happens to a stored state that cannot be read back (written by a faulty older version,
 * or changed by hand): it is reported with its key and otherwise treated as absent, so that one
 * bad key never stops a partition's writes or an endpoint's answers. The writer also moves the
 * state aside, byte for byte (see {@link ./keys.ts} `quarantineKey`), before it writes a fresh
 * state there.
 *
 * @module
 */
import type { Aggregate, StoredState } from './aggregate.ts';
import { NewerStateFormatError } from './state-format.ts';

/** A stored value that could not be read, and why. */
export interface UnreadableState {
  readonly key: string;
  /** What is wrong, without the value: stored entries are raw events and may hold personal data. */
  readonly reason: string;
  /** The value's length: in UTF-16 code units, or in bytes where it was read as bytes. */
  readonly length: number;
}

/** The reader's message up to where it would quote the value (`…: got …`, `…, "…"`). */
function withoutValue(message: string): string {
  const cut = [message.indexOf(': '), message.indexOf(', "')].filter((at) => at >= 0);
  return cut.length === 0 ? message : message.slice(0, Math.min(...cut));
}

/** What the log says when the writer moved an unreadable state aside. */
export const MOVED_ASIDE_MESSAGE =
  'a stored state could not be read; moved aside and started afresh';

/** Told about every unreadable state; must not throw. */
export type UnreadableReporter = (state: UnreadableState) => void;

/**
 * `stored` (bytes or text) deserialized by `aggregate`, or null (after telling `report`) when it
 * cannot be read. A state in the format of a newer version is not unreadable but unknown here: its
 * {@link NewerStateFormatError} is thrown, so that nothing moves it aside or answers without it.
 *
 * @example
 * ```ts
 * const state = readStateOrReport(usageCounts, key, '[1,2', (bad) => log.error(bad));
 * // null, and the reporter was told { key, reason: 'usage counts state must be …' }
 * ```
 */
export function readStateOrReport<State, Stored extends string | Uint8Array = string>(
  aggregate: { readonly deserialize: (stored: Stored) => State },
  key: string,
  stored: Stored,
  report: UnreadableReporter | undefined,
): State | null {
  try {
    return aggregate.deserialize(stored);
  } catch (error) {
    if (error instanceof NewerStateFormatError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    report?.({ key, reason: withoutValue(message), length: stored.length });
    return null;
  }
}

/**
 * The merge of every writer's part of one bucket (see `src/store/port.ts`), skipping (after
 * telling `report`) the parts that cannot be read; null when no part can.
 *
 * @example
 * ```ts
 * mergeParts(usageCounts, key, ['[2,1,0,0,0]', '[1,0,1,0,0]'], report); // total 3
 * ```
 */
export function mergeParts<State>(
  aggregate: Pick<Aggregate<State, unknown, unknown>, 'deserialize' | 'merge'>,
  key: string,
  parts: readonly StoredState[],
  report: UnreadableReporter | undefined,
): State | null {
  let merged: State | null = null;
  for (const part of parts) {
    const state = readStateOrReport(aggregate, key, part, report);
    if (state === null) continue;
    merged = merged === null ? state : aggregate.merge(merged, state);
  }
  return merged;
}
