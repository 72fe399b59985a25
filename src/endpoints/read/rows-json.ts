/**
 * An answer's rows as the bytes the HTTP API sends, and the limits they are written within.
 *
 * @module
 */
import { JsonBytes } from '../../text/json-bytes.ts';
import { CLOSE_BRACKET, COMMA, OPEN_BRACKET } from '../../text/json-chars.ts';

/**
 * Rows as the UTF-8 bytes of a JSON array within a frame, and whether rows were left out to keep
 * it within a byte limit.
 */
export interface RowsJson {
  readonly json: Uint8Array<ArrayBuffer>;
  /** Rows in `json`. */
  readonly rows: number;
  /** True when at least one more row was read and left out for the byte limit. */
  readonly truncated: boolean;
  /**
   * Where the endpoint gives one: what every row of the whole answer (before any limit) is written
   * from, far fewer bytes than `json`: the values of `functions.invocation-stats`
   * ({@link ./value-digest.ts}), the entries of `logs.all`. Two answers of one request with equal
   * digests and as many rows are the same bytes.
   */
  readonly digest?: Uint8Array;
}

/** How much of an answer may be sent. */
export interface AnswerLimits {
  /** Most rows (the endpoint record's cap). */
  readonly maxRows: number;
  /** Most bytes of the framed answer; the rows beyond are left out whole. */
  readonly maxBytes: number;
}

/**
 * Where every answer's rows are written before they are copied out at their size: one array for
 * the process, grown to the largest answer (at most `maxBytes` and a row). {@link writeRows} uses
 * it from start to end without yielding, so no two answers ever share it at once.
 */
const SCRATCH = new JsonBytes(64 * 1024);

/**
 * `count` rows, each written by `writeRow` straight into one framed JSON array, within `limits`:
 * a row that would take the answer over `maxBytes` is cut and ends the answer (`truncated`), rows
 * past `maxRows` are not asked for. `writeRow` must write one whole JSON value.
 *
 * @example
 * ```ts
 * writeRows(limits, before, after, results.length, (out, i) => {
 *   out.ascii('{"n":').number(results[i].n).byte(CLOSE_BRACE);
 * });
 * ```
 */
export function writeRows(
  limits: AnswerLimits,
  before: Uint8Array,
  after: Uint8Array,
  count: number,
  writeRow: (out: JsonBytes, index: number) => void,
): RowsJson {
  const out = SCRATCH;
  out.cut(0);
  out.bytes(before).byte(OPEN_BRACKET);
  let rows = 0;
  let truncated = false;
  const last = Math.min(count, limits.maxRows);
  for (let i = 0; i < last; i++) {
    const rowStart = out.length;
    if (rows > 0) out.byte(COMMA);
    writeRow(out, i);
    if (out.length + 1 + after.length > limits.maxBytes) {
      out.cut(rowStart);
      truncated = true;
      break;
    }
    rows++;
  }
  out.byte(CLOSE_BRACKET).bytes(after);
  const json = out.copy();
  // As `framedRows` says: a frame too large for `maxBytes` on its own leaves rows out too.
  return { json, rows, truncated: truncated || json.length > limits.maxBytes };
}
