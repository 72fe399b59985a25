/**
 * LZ4 record batches: the LZ4 frame format, which Apache Kafka's Java client writes (lz4-java's
 * `KafkaLZ4BlockOutputStream`) since message format 2 fixed its header checksum. lz4js is pure
 * JavaScript: the native `lz4` module would not load on Deno, and LZ4 is not in `node:zlib`.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { compress, decompress, decompressBound } from 'lz4js';
import { type Codec, MAX_BATCH_BYTES } from './codec.ts';

/** LZ4 frames, read and written. */
export const lz4Codec: Codec = {
  compress({ buffer }) {
    return Promise.resolve(Buffer.from(compress(buffer)));
  },
  decompress(buffer) {
    // The frame's blocks bound what it holds; lz4js sizes its output by them.
    const bound = Number(decompressBound(buffer));
    if (!(bound <= MAX_BATCH_BYTES)) {
      throw new Error(`an LZ4 batch may hold ${bound} bytes: at most ${MAX_BATCH_BYTES} are read`);
    }
    return Promise.resolve(Buffer.from(decompress(buffer, bound)));
  },
};
