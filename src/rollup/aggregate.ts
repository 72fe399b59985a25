/**
 * An aggregate function state in the ClickHouse `-State`/`-Merge` (or Algebird monoid) sense:
 * everything a rollup does, streaming fold, merging a delta into a stored state, serializing to
 * the store and reading back, is one of these operations, so no grain or endpoint needs a
 * special case. The write path runs the same operations on states kept in columns
 * (`state-columns.ts`), held byte for byte to these by property tests.
 *
 * @example
 * ```ts
 * const state = usageCounts.empty();
 * usageCounts.add(state, ['rest']);
 * const stored = usageCounts.serialize(state);
 * usageCounts.finalize(usageCounts.merge(usageCounts.deserialize(stored), state));
 * ```
 *
 * @module
 */

/** The operations of one aggregate. `add` and `merge` may mutate their first argument. */
export interface Aggregate<State, Value, Result> {
  /** A fresh state that represents no values. */
  empty(): State;
  /** Folds one value into `state` and returns it. */
  add(state: State, value: Value): State;
  /** Merges `other` into `into` and returns it; `other` is left unchanged. */
  merge(into: State, other: State): State;
  /** The answer the state stands for. */
  finalize(state: State): Result;
  /** A compact text form for the store. */
  serialize(state: State): string;
  /**
   * The inverse of `serialize`, from that text or its bytes as a store replies them; throws an
   * Error naming the problem on a corrupt state.
   */
  deserialize(stored: StoredState): State;
  /**
   * How many values a stored state holds, read from its first {@link HEAD_COUNT_BYTES} (a whole
   * state will do) without building the state; null when that head does not say.
   */
  headCount(head: StoredState): number | null;
}

/**
 * A state as the store gives it back: its bytes (every store's reads), or the text `serialize`
 * wrote (tools and tests).
 */
export type StoredState = Uint8Array | string;

const fromUtf8 = new TextDecoder();

/** A stored state as text: JSON states, written before the binary forms, are read so. */
export function storedText(stored: StoredState): string {
  return typeof stored === 'string' ? stored : fromUtf8.decode(stored);
}

/** How much of a stored state's text {@link Aggregate.headCount} reads, in bytes. */
export const HEAD_COUNT_BYTES = 32;

/**
 * The count a text holds right after `opening` (digits, then a comma), or null.
 *
 * @example
 * ```ts
 * countAfter('[12,0,3,0,0]', '['); // 12
 * countAfter('{"n":7,"e":0,…', '{"n":'); // 7
 * ```
 */
export function countAfter(text: string, opening: string): number | null {
  if (!text.startsWith(opening)) return null;
  const end = text.indexOf(',', opening.length);
  const digits = text.slice(opening.length, end);
  return end > opening.length && end - opening.length <= 15 && /^\d+$/.test(digits)
    ? Number(digits)
    : null;
}
