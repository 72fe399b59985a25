/**
 * The field of a bucket hash that holds one stream's part (see `StateWrite.slot` in
 * {@link ./port.ts}): the stream itself for the bucket's own part, or the slot, a space and the
 * stream for the part of one slot of a hash that keeps several buckets (a minute's seconds).
 * Stream names (Kafka topic and partition, or `ingest/<id>`) never hold a space, nor does a
 * slot.
 *
 * @module
 */

/**
 * The field of `stream`'s part in slot `slot` (undefined: the bucket's own part).
 *
 * @example
 * ```ts
 * partField('logs.edge/3', undefined); // 'logs.edge/3'
 * partField('logs.edge/3', '17'); // '17 logs.edge/3'
 * ```
 */
export function partField(stream: string, slot: string | undefined): string {
  return slot === undefined ? stream : `${slot} ${stream}`;
}

/** The slot of a field {@link partField} wrote (null: a bucket's own part). */
export function slotOfField(field: string): string | null {
  const space = field.indexOf(' ');
  return space < 0 ? null : field.slice(0, space);
}

const SPACE = 0x20;
const fromUtf8 = new TextDecoder();

/** {@link slotOfField} of a field's bytes, as a store replies it. */
export function slotOfFieldBytes(field: Uint8Array): string | null {
  const space = field.indexOf(SPACE);
  if (space < 0) return null;
  let slot = '';
  for (let i = 0; i < space; i++) {
    const byte = field[i] as number;
    if (byte >= 0x80) return fromUtf8.decode(field.subarray(0, space));
    slot += String.fromCharCode(byte);
  }
  return slot;
}
