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
import { guarded, unread } from './undecodable.ts';
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

/** The codecs, by compression type; kafkajs's own gzip is the one it loads itself. */
const CODECS: ReadonlyMap<CompressionName, () => Codec> = new Map([
  ['gzip', () => kafkajs.CompressionCodecs[CompressionTypes.GZIP]()],
  ['snappy', () => snappyCodec],
  ['lz4', () => lz4Codec],
  ['zstd', () => zstdCodec],
]);

/** Compression type ids Kafka has not defined (the three bits of a batch's attributes hold 7). */
const UNDEFINED_TYPES = [5, 6, 7];

/** Options of {@link registerCodecs}. */
export interface CodecOptions {
  /**
   * Codecs this process does not read, as if it had no library for them: their batches pause
   * their partitions. For tests of what the consumers do with a batch they cannot read.
   */
  readonly withheld?: readonly CompressionName[];
}

let registered = false;

/**
 * Makes kafkajs read and write snappy, lz4 and zstd batches besides its own gzip, and answer a
 * batch it cannot decode (of a type Kafka has not defined, or corrupt) with markers instead of
 * failing the whole fetch (see `undecodable.ts`). The first call decides; later ones change
 * nothing.
 *
 * @example
 * ```ts
 * registerCodecs();
 * await producer.send({ topic, compression: COMPRESSION_TYPES.zstd, messages });
 * ```
 */
export function registerCodecs(options: CodecOptions = {}): void {
  if (registered) return;
  registered = true;
  const codecs: Record<number, () => Codec> = kafkajs.CompressionCodecs;
  for (const [name, codec] of CODECS) {
    const type = COMPRESSION_TYPES[name];
    const chosen = options.withheld?.includes(name) === true
      ? unread(`this process does not read ${name} batches`)
      : guarded(codec(), name);
    codecs[type] = () => chosen;
  }
  for (const type of UNDEFINED_TYPES) {
    const chosen = unread(`compression type ${type} is not one Kafka defines`);
    codecs[type] = () => chosen;
  }
}
