/**
 * Snappy record batches, in both forms producers write: the xerial framing of Apache Kafka's Java
 * client (snappy-java's `SnappyOutputStream`: a magic header, then length-prefixed blocks) and
 * the single raw block of librdkafka and other clients. Compressed in the xerial framing, which
 * every Kafka client reads. snappyjs is pure JavaScript: the native `snappy` module would not load
 * on Deno, and Snappy is not in `node:zlib`.
 *
 * @example
 * ```ts
 * const bytes = await snappyCodec.decompress(await snappyCodec.compress({ buffer }));
 * ```
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { compress, uncompress } from 'snappyjs';
import { type Codec, MAX_BATCH_BYTES } from './codec.ts';

/** snappy-java's stream header: magic, then format version 1 and oldest compatible version 1. */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;
/** Uncompressed bytes per block, as snappy-java's default. */
const XERIAL_BLOCK_BYTES = 32 * 1024;

function isXerial(buffer: Buffer): boolean {
  return buffer.length >= XERIAL_HEADER_BYTES &&
    buffer.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC);
}

function uncompressBlock(block: Uint8Array): Uint8Array {
  return uncompress(block, MAX_BATCH_BYTES);
}

/** Snappy, read in both framings and written in the xerial one. */
export const snappyCodec: Codec = {
  compress({ buffer }) {
    const header = Buffer.alloc(XERIAL_HEADER_BYTES);
    XERIAL_MAGIC.copy(header);
    header.writeInt32BE(1, 8);
    header.writeInt32BE(1, 12);
    const parts: Uint8Array[] = [header];
    for (let start = 0; start < buffer.length; start += XERIAL_BLOCK_BYTES) {
      const block = compress(buffer.subarray(start, start + XERIAL_BLOCK_BYTES));
      const length = Buffer.alloc(4);
      length.writeInt32BE(block.length);
      parts.push(length, block);
    }
    return Promise.resolve(Buffer.concat(parts));
  },
  decompress(buffer) {
    if (!isXerial(buffer)) return Promise.resolve(Buffer.from(uncompressBlock(buffer)));
    const blocks: Uint8Array[] = [];
    let total = 0;
    for (let offset = XERIAL_HEADER_BYTES; offset < buffer.length;) {
      if (offset + 4 > buffer.length) throw new Error('a snappy block length is cut short');
      const length = buffer.readInt32BE(offset);
      offset += 4;
      if (length < 0 || offset + length > buffer.length) {
        throw new Error(
          `a snappy block claims ${length} bytes: ${buffer.length - offset} are left`,
        );
      }
      const block = uncompressBlock(buffer.subarray(offset, offset + length));
      offset += length;
      total += block.length;
      if (total > MAX_BATCH_BYTES) {
        throw new Error(`a snappy batch holds more than ${MAX_BATCH_BYTES} bytes`);
      }
      blocks.push(block);
    }
    return Promise.resolve(Buffer.concat(blocks));
  },
};
