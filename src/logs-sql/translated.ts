/**
 * A piece of the caller's query translated to SQLite's SQL, with what the translation knows of
 * its type: enough to carry BigQuery's meaning where SQLite's differs (timestamps compared with
 * text, fields compared with numbers, booleans answered as `true`/`false`).
 *
 * @module
 */

/**
 * - `timestamp`: integer microseconds (a timestamp column, `timestamp_trunc`, a cast);
 * - `bool`: SQLite's 0 or 1 for BigQuery's `BOOL`;
 * - `field`: a value read from an event's JSON (`metadata.level`), typed only at run time;
 * - `number`, `text`: known from the expression;
 * - `unknown`: anything else.
 */
export type ValueType = 'timestamp' | 'bool' | 'field' | 'number' | 'text' | 'unknown';

/** A translated expression. */
export interface Translated {
  /** SQLite's SQL for the value, parenthesized where it could bind loosely. */
  readonly sql: string;
  readonly type: ValueType;
  /**
   * For a field of an event: SQLite's SQL for its JSON type (`json_type`), which a result column
   * carries beside the value, so that an object or array is answered as one and a JSON boolean
   * as a boolean (the value alone is what it groups, sorts and compares by).
   */
  readonly jsonType?: string;
  /** For a literal: its value. */
  readonly literal?: string | number | boolean | null;
}

/** A SQL string literal of `text` (quotes doubled). */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The type of a value that is one of `values` (CASE's results, `ifnull`'s arguments): the one
 * type of those that have one, so that booleans stay booleans; an event's field and NULL take
 * their partners' type.
 */
export function commonType(values: readonly Translated[]): Translated['type'] {
  const types = new Set(
    values.filter((value) => value.literal !== null && value.type !== 'field').map((v) => v.type),
  );
  const [only] = types;
  return types.size === 1 && only !== undefined ? only : 'unknown';
}
