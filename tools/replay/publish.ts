/**
 * Publishes NDJSON event lines to their topics, keyed by project ref (so one project's events
 * land in one partition, in order), as fast as the broker takes them, at a given rate, or each
 * line at its own due time.
 *
 * @example
 * ```ts
 * await publishLines(lines, { producer, topics: topicNames(), rate: 10_000 });
 * ```
 *
 * @module
 */
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { type Kafka, type Message, Partitioners, type Producer } from 'kafkajs';
import { COMPRESSION_TYPES, type CompressionName } from '../../src/kafka/codecs/register.ts';
import type { Source } from '../../src/events/types.ts';
import type { TopicNames } from '../../src/kafka/topics.ts';

/** One line to publish. */
export interface SourcedLine {
  readonly source: Source;
  readonly line: string;
  /** When to publish it, on the `performance.now()` clock (ms); absent: at once. */
  readonly dueMs?: number;
}

/** Options of {@link publishLines}. */
export interface PublishOptions {
  readonly producer: Producer;
  readonly topics: TopicNames;
  /** Events per second; 0 or absent: as fast as possible. */
  readonly rate?: number;
  /** Messages per produce request. Default 500. */
  readonly batchSize?: number;
  /**
   * Most bytes per produce request: its keys and values, and {@link RECORD_FRAMING_BYTES} for
   * each record's framing (a request is sent once it would hold more, whatever {@link batchSize}
   * says). Default {@link MAX_REQUEST_BYTES}: a partition's batch, which the broker takes as one
   * message, then stays under its default largest message (1 MiB, `message.max.bytes`).
   */
  readonly maxRequestBytes?: number;
  /**
   * Produce requests in flight at once. Default 1: an idempotent kafkajs producer (which
   * {@link replayProducer} makes, so that a retry never duplicates an event) allows no more.
   */
  readonly inFlight?: number;
  /**
   * Message keys: `project` (the default: one project's events land in one partition), or
   * `random` (a producer that does not key by project: every partition gets every project).
   */
  readonly keys?: 'project' | 'random';
  /** How record batches are compressed. Default `none`. */
  readonly compression?: CompressionName;
  /** Called after each acknowledged batch with the running total. */
  readonly onProgress?: (sent: number) => void;
  /** Stops reading lines: what was read is still published, then the count resolves. */
  readonly signal?: AbortSignal;
}

/**
 * Default of {@link PublishOptions.maxRequestBytes}: under the broker's default largest message
 * (1,048,588 bytes) by more than a batch's own header (61 bytes).
 */
export const MAX_REQUEST_BYTES = 1_000_000;

/** What a record's framing is counted as (its length, attributes, deltas, header count: < 30). */
export const RECORD_FRAMING_BYTES = 64;

/**
 * A producer for replays: idempotent (a retried request is never written twice, so a replay
 * publishes each event exactly once) with one request in flight, as idempotence requires in
 * kafkajs.
 */
export function replayProducer(kafka: Kafka): Producer {
  return kafka.producer({
    allowAutoTopicCreation: false,
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}

/**
 * The message key of a line: the project ref (`project` of an edge event, the first
 * `metadata[].project_ref` of a function-edge event), or null when the line is not such JSON
 * (an invalid event still gets published, for the consumers to dead-letter).
 */
export function projectKey(source: Source, line: string): string | null {
  try {
    const event: unknown = JSON.parse(line);
    if (event === null || typeof event !== 'object') return null;
    if (source === 'edge') {
      const project = (event as { project?: unknown }).project;
      return typeof project === 'string' ? project : null;
    }
    const metadata = (event as { metadata?: unknown }).metadata;
    const first: unknown = Array.isArray(metadata) ? metadata[0] : undefined;
    const ref = first !== null && typeof first === 'object'
      ? (first as { project_ref?: unknown }).project_ref
      : undefined;
    return typeof ref === 'string' ? ref : null;
  } catch {
    return null;
  }
}

/** Publishes every line; resolves with the count once the broker acknowledged all of them. */
export async function publishLines(
  lines: Iterable<SourcedLine> | AsyncIterable<SourcedLine>,
  options: PublishOptions,
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const maxRequestBytes = options.maxRequestBytes ?? MAX_REQUEST_BYTES;
  const maxInFlight = options.inFlight ?? 1;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let pending: { topic: string; messages: Message[] }[] = [];
  let pendingCount = 0;
  let pendingBytes = 0;
  let queued = 0;
  let sent = 0;

  const send = async () => {
    const topicMessages = pending;
    const count = pendingCount;
    pending = [];
    pendingCount = 0;
    pendingBytes = 0;
    const request = options.producer.sendBatch({
      topicMessages,
      acks: -1,
      compression: COMPRESSION_TYPES[options.compression ?? 'none'],
    }).then(() => {
      sent += count;
      options.onProgress?.(sent);
    });
    const tracked = request.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= maxInFlight) await Promise.race(inFlight);
  };

  for await (const { source, line, dueMs } of lines) {
    if (stopped(options.signal)) break;
    const due = dueMs ??
      (options.rate !== undefined && options.rate > 0
        ? started + (queued / options.rate) * 1000
        : undefined);
    // Ahead of time: what is read goes out first, then the wait (batches never hold a line
    // back past its time).
    if (due !== undefined && due - performance.now() >= 1) {
      if (pendingCount > 0) await send();
      await sleep(due - performance.now(), options.signal);
      if (stopped(options.signal)) break;
    }
    const topic = options.topics[source];
    const key = options.keys === 'random' ? randomUUID() : projectKey(source, line);
    const bytes = RECORD_FRAMING_BYTES + Buffer.byteLength(line) +
      (key === null ? 0 : Buffer.byteLength(key));
    // The line would take the request past its bytes: what is pending goes first.
    if (pendingCount > 0 && pendingBytes + bytes > maxRequestBytes) await send();
    let group = pending.find((entry) => entry.topic === topic);
    if (group === undefined) {
      group = { topic, messages: [] };
      pending.push(group);
    }
    group.messages.push({ key, value: line });
    pendingCount += 1;
    pendingBytes += bytes;
    queued += 1;
    if (pendingCount >= batchSize) await send();
  }
  if (pendingCount > 0) await send();
  await Promise.all(inFlight);
  return sent;
}

function stopped(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
