/**
 * A load generator for the ingest benchmark, run as its own process so that producing does not
 * share a CPU thread with the consumer being measured: publishes generated events at a fixed
 * rate for a fixed time, then exits.
 *
 * `node tools/bench/produce.ts --rate 20000 --seconds 20 [--keys project|random] [--projects N]`
 * (KAFKA_BROKERS, KAFKA_TOPIC_PREFIX); N projects (default 1,000), Zipf-skewed.
 *
 * @module
 */
import { toolArgs } from '../tool-args.ts';
import { Kafka, logLevel } from 'kafkajs';
import { topicNames } from '../../src/kafka/topics.ts';
import { generateEvents, GENERATOR_DEFAULTS } from '../../src/synthetic/generator.ts';
import { publishLines, replayProducer } from '../replay/publish.ts';
import { kafkaService } from '../services/kafka.ts';

const { values } = toolArgs(import.meta.url, {
  options: {
    rate: { type: 'string' },
    seconds: { type: 'string' },
    seed: { type: 'string', default: '7' },
    keys: { type: 'string', default: 'project' },
    projects: { type: 'string', default: String(GENERATOR_DEFAULTS.projects) },
  },
});
const keys = values.keys;
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const projects = Number(values.projects);
if (
  !(rate > 0) || !(seconds > 0) || seconds > 600 || (keys !== 'project' && keys !== 'random') ||
  !Number.isSafeInteger(projects) || projects < 1
) {
  console.error(
    'usage: produce.ts --rate EVENTS_PER_SECOND --seconds 1..600 [--keys project|random] ' +
      '[--projects N]',
  );
  process.exit(2);
}
const brokers = (process.env.KAFKA_BROKERS ?? kafkaService().address).split(',');
const kafka = new Kafka({ clientId: 'bench-produce', brokers, logLevel: logLevel.NOTHING });
const producer = replayProducer(kafka);
await producer.connect();
const events = Math.floor(rate * seconds);
const sent = await publishLines(
  generateEvents({
    seed: Number(values.seed),
    events,
    nowUs: Date.now() * 1000,
    spanUs: 60_000_000,
    projects,
  }),
  {
    producer,
    topics: topicNames(process.env.KAFKA_TOPIC_PREFIX ?? ''),
    rate,
    batchSize: 200,
    keys,
  },
);
await producer.disconnect();
console.log(JSON.stringify({ sent }));
