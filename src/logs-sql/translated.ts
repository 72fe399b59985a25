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
  /** For a field of an event: SQLite's SQL for its JSON text, what a result column carries. */
  readonly json?: string;
  /** For a literal: its value. */
  readonly literal?: string | number | boolean | null;
}

/** A SQL string literal of `text` (quotes doubled). */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
