/**
 * LZ4 record batches: the LZ4 frame format, which Apache Kafka's Java client writes (lz4-java,
 * through its `Lz4BlockOutputStream`) since message format 2 fixed its header checksum. lz4js is
 * pure JavaScript: the native `lz4` module would not load on Deno, and LZ4 is not in `node:zlib`.
 * lz4js reads frames whole; its frames and blocks are written here in the form Kafka reads.
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { compressBlock, compressBound, decompress, decompressBound } from 'lz4js';
import { type Codec, MAX_BATCH_BYTES } from './codec.ts';

/**
 * The magic number (0x184D2204, little-endian), then the frame descriptor Kafka writes: version 1
 * with independent blocks (the broker refuses "Dependent block stream", which lz4js's own frame
 * writer makes), 64 KiB blocks, and its header checksum (the second byte of the xxHash32 of the
 * two descriptor bytes, seed 0).
 */
const FRAME_HEADER = [0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82];
const BLOCK_BYTES = 64 * 1024;
/** A block's length word with this bit set holds the block's bytes as they are. */
const UNCOMPRESSED = 0x80000000;
/** Slots of lz4js's match table (its `hashSize`). */
const HASH_SLOTS = 1 << 16;
/**
 * LZ4's end-of-block rule (the last match starts at least 12 bytes before the end): lz4js lets a
 * match start up to 9 bytes before it, which the Java client's decoder refuses ("Error decoding
 * offset"). So lz4js compresses all but these last bytes, which join the block's final literals.
 */
const TAIL_LITERALS = 12;

/** Where the final literals of an LZ4 block start, and the token that counts them. */
function finalLiterals(block: Uint8Array): { token: number; literals: number } {
  for (let at = 0;;) {
    const token = at;
    const tokenByte = block[at++] ?? 0;
    let count = tokenByte >> 4;
    if (count === 15) {
      for (let more = 255; more === 255; count += more) more = block[at++] ?? 0;
    }
    const literals = at;
    at += count;
    if (at >= block.length) return { token, literals };
    // The match: a 2-byte offset and, for a long one, its length's extra bytes.
    at += 2;
    if ((tokenByte & 15) === 15) { while ((block[at++] ?? 0) === 255); }
  }
}

/** The token's literal count and its extra bytes, for `count` literals and no match. */
function literalsToken(count: number): number[] {
  if (count < 15) return [count << 4];
  const bytes = [0xf0];
  let rest = count - 15;
  for (; rest >= 255; rest -= 255) bytes.push(255);
  bytes.push(rest);
  return bytes;
}

/** An LZ4 block of `input`, or null when it would not be smaller. */
function compressedBlock(input: Uint8Array, scratch: Uint8Array): Uint8Array | null {
  if (input.length <= TAIL_LITERALS * 2) return null;
  const head = input.length - TAIL_LITERALS;
  // A fresh table per block keeps blocks independent of each other.
  const size = compressBlock(input, scratch, 0, head, new Uint32Array(HASH_SLOTS));
  if (size === 0) return null;
  const block = scratch.subarray(0, size);
  const { token, literals } = finalLiterals(block);
  const out = Buffer.concat([
    block.subarray(0, token),
    Buffer.from(literalsToken(size - literals + TAIL_LITERALS)),
    block.subarray(literals),
    input.subarray(head),
  ]);
  return out.length < input.length ? out : null;
}

/** An LZ4 frame of `input` as Kafka writes it: independent blocks, no checksums. */
function frame(input: Uint8Array): Buffer {
  const parts: Uint8Array[] = [Buffer.from(FRAME_HEADER)];
  const scratch = new Uint8Array(compressBound(BLOCK_BYTES));
  for (let start = 0; start < input.length; start += BLOCK_BYTES) {
    const raw = input.subarray(start, start + BLOCK_BYTES);
    const block = compressedBlock(raw, scratch);
    const word = Buffer.alloc(4);
    word.writeUInt32LE(block === null ? (UNCOMPRESSED | raw.length) >>> 0 : block.length);
    parts.push(word, block ?? raw);
  }
  // The end mark.
  parts.push(Buffer.alloc(4));
  return Buffer.concat(parts);
}

/** LZ4 frames, read and written. */
export const lz4Codec: Codec = {
  compress({ buffer }) {
    return Promise.resolve(frame(buffer));
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
