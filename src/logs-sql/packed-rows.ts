/**
 * A table's rows packed to cross into the engine's thread in one transfer: their texts in one
 * buffer (moved, not copied), ids and times beside. Packing also copies each text out of whatever
 * larger buffer it is a view of (a store reply), which a clone would copy whole.
 *
 * @module
 */
import type { TableRow } from './engine.ts';

/** Rows as they cross threads. */
export interface PackedRows {
  readonly ids: readonly string[];
  readonly timestamps: Float64Array;
  /** Where each row's text ends in `bytes`. */
  readonly ends: Uint32Array;
  readonly bytes: Uint8Array;
}

/** `rows` packed; `bytes` is a buffer of its own, to transfer. */
export function packRows(rows: readonly TableRow[]): PackedRows {
  let length = 0;
  for (const row of rows) length += row.json.byteLength;
  const bytes = new Uint8Array(length);
  const ends = new Uint32Array(rows.length);
  const timestamps = new Float64Array(rows.length);
  let at = 0;
  rows.forEach((row, i) => {
    bytes.set(row.json, at);
    at += row.json.byteLength;
    ends[i] = at;
    timestamps[i] = row.timestampUs;
  });
  return { ids: rows.map((row) => row.id), timestamps, ends, bytes };
}

/** The rows of `packed`, their texts views of its buffer. */
export function unpackRows(packed: PackedRows): TableRow[] {
  const rows: TableRow[] = [];
  let start = 0;
  for (let i = 0; i < packed.ids.length; i++) {
    const end = packed.ends[i] ?? start;
    rows.push({
      id: packed.ids[i] as string,
      timestampUs: packed.timestamps[i] ?? 0,
      json: packed.bytes.subarray(start, end),
    });
    start = end;
  }
  return rows;
}
