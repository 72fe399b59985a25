/**
 * A record batch the consumers cannot decode (a codec this process does not read, bytes that do
 * not decompress or do not hold the records they claim) must stop only its own partition. kafkajs
 * decodes every partition of a fetch together, and one batch that throws fails the whole fetch
 * and restarts the group, in a loop. So a codec here never throws: a batch it cannot decode
 * decodes to as many marker records as the batch counts, at the batch's offsets, each carrying
 * the reason in a header no producer can forge. The consumer sees the markers in the batch's
 * partition and pauses it (see `consumers/runner.ts`).
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { Codec } from './codec.ts';
import { messageOf } from '../../text/error-message.ts';

/** The marker's header: unique to this process, so no record published to Kafka carries it. */
const MARKER_HEADER = `undecodable-batch-${randomUUID()}`;

/** The reason a marker record carries, or null for a record that was decoded. */
export function undecodableReason(
  headers: Readonly<Record<string, unknown>> | undefined,
): string | null {
  const reason = headers?.[MARKER_HEADER];
  if (reason === undefined) return null;
  return Buffer.isBuffer(reason) ? reason.toString('utf8') : String(reason);
}

/** Most records a batch is believed to count (a 1 MiB batch of the smallest records holds less). */
const MAX_MARKERS = 1_000_000;

/** Kafka's zigzag varint. */
function varint(value: number): number[] {
  let rest = ((value << 1) ^ (value >> 31)) >>> 0;
  const bytes: number[] = [];
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return bytes;
}

/** `count` records (format 2) with no key and no value, at offset deltas 0 to count - 1. */
function markers(count: number, reason: string): Buffer {
  const key = Buffer.from(MARKER_HEADER);
  const value = Buffer.from(reason);
  const headers = [
    ...varint(1),
    ...varint(key.length),
    ...key,
    ...varint(value.length),
    ...value,
  ];
  const records: number[] = [];
  for (let delta = 0; delta < count; delta++) {
    // Attributes, timestamp delta, offset delta, key and value absent, the header.
    const body = [0, ...varint(0), ...varint(delta), ...varint(-1), ...varint(-1), ...headers];
    records.push(...varint(body.length), ...body);
  }
  return Buffer.from(records);
}

/**
 * How many records the batch of `compressed` holds: the count that kafkajs read just before the
 * compressed bytes, in the same fetched buffer. Null when `compressed` stands alone.
 */
function recordCount(compressed: Buffer): number | null {
  if (compressed.byteOffset < 4) return null;
  const count = new DataView(compressed.buffer, compressed.byteOffset - 4, 4).getInt32(0);
  // A count no broker-accepted batch reaches says the batch's header is corrupt too: the fetch
  // fails as kafkajs would fail it, rather than this process making a million markers.
  return count > 0 && count <= MAX_MARKERS ? count : null;
}

/** Reads a zigzag varint at `at`; null past the end. */
function readVarint(bytes: Buffer, at: number): { value: number; next: number } | null {
  let raw = 0;
  for (let shift = 0, i = at; i < bytes.length && shift < 35; shift += 7, i++) {
    const byte = bytes[i] ?? 0;
    raw |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return { value: (raw >>> 1) ^ -(raw & 1), next: i + 1 };
  }
  return null;
}

/** Whether `records` are exactly `count` length-prefixed records. */
function holdsRecords(records: Buffer, count: number): boolean {
  let at = 0;
  for (let i = 0; i < count; i++) {
    const length = readVarint(records, at);
    if (length === null || length.value < 0) return false;
    at = length.next + length.value;
  }
  return at === records.length;
}

/**
 * `codec`, answering markers (see the module's doc) for a batch it cannot decode. Compressing is
 * left as it is: a batch that cannot be compressed fails its send, which the sender sees.
 */
export function guarded(codec: Codec, name: string): Codec {
  return {
    compress: (encoder) => codec.compress(encoder),
    async decompress(compressed) {
      const count = recordCount(compressed);
      let records: Buffer;
      try {
        records = await codec.decompress(compressed);
      } catch (error) {
        if (count === null) throw error;
        return markers(count, `the ${name} batch does not decompress: ${messageOf(error)}`);
      }
      if (count === null || holdsRecords(records, count)) return records;
      return markers(count, `the ${name} batch does not hold the ${count} records it counts`);
    },
  };
}

/** A codec this process does not read: every batch of it decodes to markers. */
export function unread(reason: string): Codec {
  return {
    compress: () => Promise.reject(new Error(reason)),
    decompress(compressed) {
      const count = recordCount(compressed);
      if (count === null) return Promise.reject(new Error(reason));
      return Promise.resolve(markers(count, reason));
    },
  };
}
