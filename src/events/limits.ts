/**
 * Size bounds of one event, so that a single hostile producer message cannot exhaust memory
 * downstream (ring buffers keep whole `metadata`, responses serialize it). Generous next to
 * real events, which are 1 to 3 KB with a nesting depth of 4 or 5.
 *
 * @module
 */
import { DAY_US } from '../time/civil.ts';

/**
 * The longest retention of any project tier (CONTRACT sections 3 and 5): events older than this are
 * rejected, no tier's `logs.all` reaches further back, and no rollup keeps anything older.
 */
export const MAX_EVENT_AGE_US = 90 * DAY_US;

/** Bounds enforced by `parse` and by the event schemas. */
export const EVENT_LIMITS = {
  /** Default maximum size of one message, in UTF-8 bytes (however it arrives). */
  maxBytes: 131_072,
  /** Maximum nesting depth inside `metadata` (the array itself is depth 1). */
  maxDepth: 32,
  idLength: 256,
  projectLength: 128,
  functionIdLength: 256,
  eventMessageLength: 32_768,
  hostLength: 1_024,
  urlLength: 8_192,
  metadataEntries: 64,
  requestEntries: 64,
  /**
   * Most distinct request hosts one edge event may name: each is an API-counts key of its own at
   * every grain, and a producer must not create thousands of keys with one message. A real edge
   * event names one.
   */
  hostsPerEvent: 16,
  responseEntries: 64,
  /**
   * Largest `execution_time_ms`: about 11.6 days, far beyond any function's run. Bounded so that
   * every sum of execution times a bucket can hold stays a finite double (an unbounded value,
   * e.g. 1e308 twice, would overflow to Infinity, which JSON cannot store).
   */
  maxExecutionTimeMs: 1_000_000_000,
} as const;
