/**
 * An answer's rows as the bytes the HTTP API sends, and the limits they are written within.
 *
 * @module
 */

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
}

/** How much of an answer may be sent. */
export interface AnswerLimits {
  /** Most rows (the endpoint record's cap). */
  readonly maxRows: number;
  /** Most bytes of the framed answer; the rows beyond are left out whole. */
  readonly maxBytes: number;
}
