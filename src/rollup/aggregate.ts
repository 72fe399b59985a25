/**
 * An aggregate function state in the ClickHouse `-State`/`-Merge` (or Algebird monoid) sense:
 * everything a rollup does, streaming fold, merging a delta into a stored state, serializing to
 * the store and reading back, is one of these operations, so no grain or endpoint needs a
 * special case.
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
  /** The inverse of `serialize`; throws an Error naming the problem on corrupt text. */
  deserialize(text: string): State;
  /**
   * How many values the state of `text` holds, read without building the whole state where
   * its text allows; throws as `deserialize` does on corrupt text.
   */
  countOf(text: string): number;
}
