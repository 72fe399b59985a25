/**
 * Zstandard record batches, through `node:zlib`, which Node (since 23.8) and Deno 2 both provide:
 * native speed with no dependency.
 *
 * @module
 */
import { promisify } from 'node:util';
import { zstdCompress, zstdDecompress } from 'node:zlib';
import { type Codec, MAX_BATCH_BYTES } from './codec.ts';

const compress = promisify(zstdCompress);
const decompress = promisify(zstdDecompress);

/** Zstandard frames, read and written. */
export const zstdCodec: Codec = {
  compress: ({ buffer }) => compress(buffer),
  decompress: (buffer) => decompress(buffer, { maxOutputLength: MAX_BATCH_BYTES }),
};
