/**
 * The events the ingest benchmarks publish (seed 1, the hour before `nowUs`, 1,000 projects
 * unless told otherwise, with Zipf-skewed activity), and their publishing as fast as the broker
 * takes them.
 *
 * @module
 */
import type { Kafka } from 'kafkajs';
import type { CompressionName } from '../../src/kafka/codecs/register.ts';
import type { TopicNames } from '../../src/kafka/topics.ts';
import {
  type GeneratedLine,
  generateEvents,
  GENERATOR_DEFAULTS,
} from '../../src/synthetic/generator.ts';
import { publishLines, replayProducer } from '../replay/publish.ts';

/**
 * The `events` lines a benchmark publishes for the clock `nowUs`: the same lines for the same
 * arguments, so a benchmark can read again, without Kafka, the messages it published.
 *
 * @example
 * ```ts
 * for (const { source, line } of benchEvents(1000, Date.now() * 1000)) parse(line, source, { nowUs });
 * ```
 */
export function benchEvents(
  events: number,
  nowUs: number,
  projects: number = GENERATOR_DEFAULTS.projects,
): Generator<GeneratedLine> {
  return generateEvents({ seed: 1, events, nowUs, spanUs: 3_600_000_000, projects });
}

/**
 * Publishes `benchEvents(events, nowUs)` to `topics` in batches of 1,000, keyed by project or
 * at random, compressed with `compression`; resolves with the seconds it took.
 *
 * @example
 * ```ts
 * const seconds = await publishGenerated(kafka, { topics, events, nowUs, keys: 'project', compression: 'none' });
 * ```
 */
export async function publishGenerated(
  kafka: Kafka,
  options: {
    readonly topics: TopicNames;
    readonly events: number;
    readonly nowUs: number;
    readonly keys: 'project' | 'random';
    readonly compression: CompressionName;
    /** Projects the events are spread over (Zipf-skewed); default 1,000. */
    readonly projects?: number;
  },
): Promise<number> {
  const producer = replayProducer(kafka);
  await producer.connect();
  const started = Date.now();
  try {
    await publishLines(benchEvents(options.events, options.nowUs, options.projects), {
      producer,
      topics: options.topics,
      batchSize: 1000,
      keys: options.keys,
      compression: options.compression,
    });
  } finally {
    await producer.disconnect();
  }
  return (Date.now() - started) / 1000;
}
