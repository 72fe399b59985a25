/**
 * `npm run replay -- FILE... [--rate N] [--source edge|function-edge]`: publishes NDJSON files
 * to their topics, keyed by project ref. A file's source is taken from its name
 * (`edge.ndjson`, `function-edge.ndjson`, as `npm run generate` writes them) unless `--source`
 * says otherwise. Brokers and topic prefix come from `KAFKA_BROKERS` and `KAFKA_TOPIC_PREFIX`.
 *
 * @module
 */
import { createReadStream, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.ts';
import { type Source, SOURCES } from '../src/events/types.ts';
import { createLogger } from '../src/logger.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { ensureTopics, topicNames } from '../src/kafka/topics.ts';
import { Progress } from './replay/progress.ts';
import { publishLines, replayProducer, type SourcedLine } from './replay/publish.ts';

const USAGE =
  'usage: npm run replay -- FILE... [--rate EVENTS_PER_SECOND] [--source edge|function-edge]';

function fail(message: string): never {
  console.error(`replay: ${message}\n${USAGE}`);
  process.exit(2);
}

function sourceOf(file: string, forced: string | undefined): Source {
  const name = forced ?? basename(file).replace(/\.ndjson$/, '');
  const source = SOURCES.find((candidate) => candidate === name);
  if (source === undefined) {
    fail(
      `cannot tell the source of ${file}: name it edge.ndjson or function-edge.ndjson, or pass --source`,
    );
  }
  return source;
}

function countLines(file: string): number {
  const bytes = readFileSync(file);
  let lines = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
  return lines;
}

async function* readLines(
  files: readonly string[],
  forced: string | undefined,
): AsyncGenerator<SourcedLine> {
  for (const file of files) {
    const source = sourceOf(file, forced);
    const reader = createInterface({
      input: createReadStream(file),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const line of reader) if (line.trim() !== '') yield { source, line };
  }
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { rate: { type: 'string' }, source: { type: 'string' } },
    });
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  const files = parsed.positionals;
  if (files.length === 0) fail('name at least one NDJSON file');
  const rate = parsed.values.rate === undefined ? 0 : Number(parsed.values.rate);
  if (!Number.isFinite(rate) || rate < 0) {
    fail(`--rate must be a non-negative number: got ${parsed.values.rate}`);
  }
  for (const file of files) sourceOf(file, parsed.values.source);

  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (config.kafkaBrokers === null) fail('set KAFKA_BROKERS (e.g. 127.0.0.1:9092)');
  const logger = createLogger('warn', 'replay');
  const kafka = kafkaClient(config, logger, config.kafkaBrokers);
  const topics = topicNames(config.kafkaTopicPrefix);
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, { partitions: config.topicPartitions, topics: Object.values(topics) });
  await admin.disconnect();

  const total = files.reduce((sum, file) => sum + countLines(file), 0);
  const progress = new Progress(total);
  const producer = replayProducer(kafka);
  await producer.connect();
  const started = performance.now();
  const sent = await publishLines(readLines(files, parsed.values.source), {
    producer,
    topics,
    rate,
    onProgress: (done) => progress.update(done),
  });
  await producer.disconnect();
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `published ${sent} events in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)} events/s)`,
  );
}

await main();
