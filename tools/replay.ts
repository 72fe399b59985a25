/**
 * `npm run replay -- FILE... [options]`: publishes NDJSON event streams to their topics, as they
 * stream (files of any size, `.gz`, standard input), at their own pace or faster, optionally
 * rebased to now and repeated (see `tools/replay/flags.ts` for every option). Brokers and topic
 * prefix come from `KAFKA_BROKERS` and `KAFKA_TOPIC_PREFIX`, TLS and the SASL login from the
 * service's `KAFKA_TLS*` and `KAFKA_SASL_*` settings. Ends with a summary (also on Ctrl-C): what
 * was published, and what was skipped and why.
 *
 * @module
 */
import { Partitioners } from 'kafkajs';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { kafkaFailure } from '../src/kafka/failure.ts';
import { ensureTopics, topicNames } from '../src/kafka/topics.ts';
import {
  FlagError,
  parseReplayFlags,
  realTime,
  type ReplayCommand,
  USAGE,
} from './replay/flags.ts';
import { InputError, inputSizes, MAX_LINE_BYTES, readCounters } from './replay/input.ts';
import { play, type PlayCounters, scanSpan, type Span } from './replay/play.ts';
import { megabytes, Progress } from './replay/progress.ts';
import { MARKER_PROJECT, Prober, type ProbeReport } from './replay/probe.ts';
import { projectKey, publishLines, replayProducer, type SourcedLine } from './replay/publish.ts';
import { writeReport } from './replay/report.ts';

function fail(message: string, usage = false): never {
  console.error(`replay: ${message}${usage ? `\n\n${USAGE}` : ''}`);
  process.exit(2);
}

function command(): ReplayCommand {
  try {
    const parsed = parseReplayFlags(
      process.argv.slice(2),
      `http://127.0.0.1:${process.env.PORT ?? '8080'}`,
    );
    if (parsed === null) {
      console.log(USAGE);
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    if (error instanceof FlagError) fail(error.message, true);
    throw error;
  }
}

async function main(): Promise<void> {
  const plan = command();
  let totalBytes: number | null;
  try {
    totalBytes = await inputSizes(plan.inputs);
  } catch (error) {
    if (error instanceof InputError) fail(error.message);
    throw error;
  }
  let config;
  try {
    config = loadConfig(kafkaSettings(process.env));
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (config.kafkaBrokers === null) {
    fail('set KAFKA_BROKERS (e.g. 127.0.0.1:19092, the broker of npm run services:up)');
  }
  const apiKey = plan.probe === null ? null : probeKey();
  if (plan.probe !== null && apiKey !== null) await checkApi(plan.probe.url, apiKey);

  let span: Span | null = null;
  if (plan.rebase && !realTime(plan.pace)) {
    try {
      span = await scanSpan(plan);
    } catch (error) {
      if (error instanceof InputError) fail(error.message);
      throw error;
    }
  }

  const logger = createLogger('warn', 'replay');
  const kafka = kafkaClient(config, logger, config.kafkaBrokers);
  const topics = topicNames(config.kafkaTopicPrefix);
  const admin = kafka.admin();
  const producer = replayProducer(kafka);
  try {
    await admin.connect();
    await ensureTopics(admin, {
      partitions: config.topicPartitions,
      topics: Object.values(topics),
    });
    await admin.disconnect();
    await producer.connect();
  } catch (error) {
    const failure = kafkaFailure(error, config.kafkaSecurity);
    fail(
      `cannot reach Kafka at ${config.kafkaBrokers.join(',')}: ` +
        (failure instanceof Error ? failure.message : String(failure)),
    );
  }

  const read = readCounters();
  const played: PlayCounters = { played: 0, notRewritten: 0 };
  const progress = new Progress(totalBytes === null ? null : totalBytes * plan.loops);
  const stop = new AbortController();
  let interrupted = false;
  process.on('SIGINT', () => {
    // A second Ctrl-C does not wait for the broker.
    if (interrupted) process.exit(130);
    interrupted = true;
    stop.abort();
  });
  let sent = 0;
  let failure: unknown = null;
  // Until the stream shows its own, the endpoints are asked about the markers' project.
  const projects = { edge: MARKER_PROJECT, functionEdge: MARKER_PROJECT };
  const markers = kafka.producer({
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  let prober: Prober | null = null;
  if (plan.probe !== null && apiKey !== null) {
    await markers.connect();
    prober = new Prober({
      apiUrl: plan.probe.url,
      apiKey,
      requestsPerSecond: plan.probe.requestsPerSecond,
      markersPerSecond: 2,
      project: () => projects,
      publishMarker: async (line) => {
        await markers.send({ topic: topics.edge, acks: -1, messages: [{ value: line }] });
      },
    });
  }
  const started = performance.now();
  prober?.start();
  try {
    await publishLines(
      noticeProjects(
        play({
          command: plan,
          span,
          nowUs: () => Date.now() * 1000,
          clockMs: () => performance.now(),
          read,
          played,
        }),
        projects,
      ),
      {
        producer,
        topics,
        keys: plan.keys,
        compression: plan.compression,
        signal: stop.signal,
        onProgress: (done) => {
          sent = done;
          progress.update({ events: sent, bytes: read.bytes });
        },
      },
    );
  } catch (error) {
    failure = error;
  }
  progress.update({ events: sent, bytes: read.bytes }, true);
  const seconds = (performance.now() - started) / 1000;
  const probed: ProbeReport | null = prober === null ? null : await prober.stop();
  await producer.disconnect().catch(() => undefined);
  await markers.disconnect().catch(() => undefined);
  console.log(summary({ sent, seconds, read, played, interrupted }));
  if (probed !== null && plan.probe !== null) {
    console.log(writeReport(plan.probe.reportPath, { sent, seconds, interrupted }, probed));
  }
  if (failure !== null) {
    console.error(`replay: ${failure instanceof Error ? failure.message : String(failure)}`);
    process.exit(1);
  }
  if (interrupted) process.exit(130);
}

/**
 * The settings a replay uses, the broker's and the topics': the store's and the API's are not
 * its business (a shell set up for the service may hold settings that only the service judges).
 */
function kafkaSettings(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) =>
      name.startsWith('KAFKA_') || name === 'TOPIC_PARTITIONS' || name === 'LOG_LEVEL'
    ),
  );
}

/** The key the prober sends: `PROBE_API_KEY`, else the first of `API_KEYS`. */
function probeKey(): string {
  const key = process.env.PROBE_API_KEY ?? process.env.API_KEYS?.split(',')[0]?.trim();
  if (key === undefined || key === '') {
    fail('probing needs a key the API accepts: set PROBE_API_KEY (or API_KEYS)');
  }
  return key;
}

/** Fails, saying why, unless the API at `url` answers with `key`. */
async function checkApi(url: string, key: string): Promise<void> {
  let status: number;
  try {
    const response = await fetch(`${url}/api/endpoints`, { headers: { 'X-API-KEY': key } });
    await response.arrayBuffer();
    status = response.status;
  } catch (error) {
    fail(`cannot reach the API at ${url}: ${error instanceof Error ? error.message : error}`);
  }
  if (status === 401 || status === 403) fail(`the API at ${url} refuses the key (${status})`);
  if (status !== 200) fail(`the API at ${url} answers ${status} to GET /api/endpoints`);
}

/** Passes `lines` on, noting the first project of each source for the prober to ask about. */
async function* noticeProjects(
  lines: AsyncIterable<SourcedLine>,
  projects: { edge: string; functionEdge: string },
): AsyncGenerator<SourcedLine> {
  for await (const item of lines) {
    if (
      item.source === 'edge'
        ? projects.edge === MARKER_PROJECT
        : projects.functionEdge === MARKER_PROJECT
    ) {
      const project = projectKey(item.source, item.line);
      if (project !== null) {
        if (item.source === 'edge') projects.edge = project;
        else projects.functionEdge = project;
      }
    }
    yield item;
  }
}

function summary(figures: {
  sent: number;
  seconds: number;
  read: ReturnType<typeof readCounters>;
  played: PlayCounters;
  interrupted: boolean;
}): string {
  const { sent, seconds, read, played } = figures;
  const lines = [
    `${figures.interrupted ? 'interrupted: ' : ''}published ${sent} events in ` +
    `${seconds.toFixed(1)} s (${Math.round(sent / Math.max(seconds, 1e-3))} events/s)`,
    `  read ${megabytes(read.bytes)}, ${read.lines} lines; played ${played.played}; ` +
    `peak memory (RSS) ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
  ];
  if (played.notRewritten > 0) {
    lines.push(
      `  ${played.notRewritten} published as they are: not a JSON object with a usable timestamp`,
    );
  }
  if (read.blank > 0) lines.push(`  ${read.blank} blank lines skipped`);
  if (read.tooLong > 0) {
    lines.push(
      `  ${read.tooLong} lines skipped: longer than ${MAX_LINE_BYTES} bytes (more than the ` +
        'broker takes in one message)',
    );
  }
  const unsent = played.played - sent;
  if (unsent > 0) lines.push(`  ${unsent} read and not acknowledged by the broker`);
  return lines.join('\n');
}

try {
  await main();
} catch (error) {
  // Whatever no step above explains is still said in one line, not as a stack trace.
  console.error(`replay: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
