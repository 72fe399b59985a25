/**
 * Zstandard record batches, through `node:zlib`, which Node (since 23.8) and Deno 2 both provide:
 * native speed with no dependency. Synchronous: a batch is at most a few MB and decompresses in
 * well under a millisecond, while the asynchronous call's trip through the thread pool cost 8.1 us
 * of CPU per event on batches of 100 events (`bench:ingest -- --compression zstd`, phase 1b),
 * about three times the synchronous call's (BENCHMARKS.md, "Compressed batches").
 *
 * @module
 */
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { type Codec, MAX_BATCH_BYTES } from './codec.ts';

/** Zstandard frames, read and written. */
export const zstdCodec: Codec = {
  compress: ({ buffer }) => Promise.resolve(zstdCompressSync(buffer)),
  decompress(buffer) {
    try {
      return Promise.resolve(zstdDecompressSync(buffer, { maxOutputLength: MAX_BATCH_BYTES }));
    } catch (error) {
      return Promise.reject(error);
    }
  },
};
