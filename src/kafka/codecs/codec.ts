/**
 * What kafkajs asks of a compression codec: compress a batch's records on publish, decompress them
 * on fetch.
 *
 * @module
 */
import type { Buffer } from 'node:buffer';

/** A kafkajs compression codec. */
export interface Codec {
  /** The records of a batch being published, as kafkajs's encoder holds them. */
  compress(encoder: { readonly buffer: Buffer }): Promise<Buffer>;
  /** The records of a fetched batch. */
  decompress(buffer: Buffer): Promise<Buffer>;
}

/**
 * Most bytes a batch may decompress to: far above any batch the broker accepts (1 MiB by
 * default, at most a few times that when compressed well), so that only a corrupt or hostile
 * batch reaches it, instead of taking the process's memory.
 */
export const MAX_BATCH_BYTES = 256 * 1024 * 1024;
