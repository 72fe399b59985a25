/**
 * The compression codecs the consumers read and the tools write, registered with kafkajs, which
 * itself knows only gzip. Registration is global to the process: {@link kafkaClient} does it, so
 * every client of the service has them.
 *
 * @module
 */
// The default import: Node's ESM finds no named export `CompressionCodecs` in kafkajs's CommonJS.
import kafkajs, { CompressionTypes } from 'kafkajs';
import type { Codec } from './codec.ts';
import { lz4Codec } from './lz4.ts';
import { snappyCodec } from './snappy.ts';
import { zstdCodec } from './zstd.ts';

/** The compression types of Kafka record batches, by their name in producer settings. */
export const COMPRESSION_TYPES = {
  none: CompressionTypes.None,
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
} as const;

/** A compression type's name: `none`, `gzip`, `snappy`, `lz4` or `zstd`. */
export type CompressionName = keyof typeof COMPRESSION_TYPES;

/** The codecs added to kafkajs's own gzip. */
const ADDED: ReadonlyMap<CompressionTypes, Codec> = new Map([
  [CompressionTypes.Snappy, snappyCodec],
  [CompressionTypes.LZ4, lz4Codec],
  [CompressionTypes.ZSTD, zstdCodec],
]);

/**
 * Makes kafkajs read and write snappy, lz4 and zstd batches. Idempotent.
 *
 * @example
 * ```ts
 * registerCodecs();
 * await producer.send({ topic, compression: COMPRESSION_TYPES.zstd, messages });
 * ```
 */
export function registerCodecs(): void {
  const codecs: Record<number, () => Codec> = kafkajs.CompressionCodecs;
  for (const [type, codec] of ADDED) codecs[type] = () => codec;
}
