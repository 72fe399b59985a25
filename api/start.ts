/**
 * Starts the service from its configuration: the store, the ingest sink (the store itself, or
 * Kafka when `KAFKA_BROKERS` is set), the API on the given runtime adapter, the consumers (role
 * `all` with Kafka) and demo traffic. The composition root: the one place that knows every
 * piece; `main.ts` only adds the process around it.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { startConsumers } from '../consumers/start.ts';
import type { Config } from '../src/config.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { topicNames } from '../src/kafka/topics.ts';
import type { Logger } from '../src/logger.ts';
import { openStore } from '../src/store/open.ts';
import { createApp } from './app.ts';
import { bannerLines } from './banner.ts';
import { type Demo, startDemo } from './demo.ts';
import { directSink } from './ingest/direct-sink.ts';
import { connectKafkaSink } from './ingest/kafka-sink.ts';
import type { IngestSink } from './ingest/sink.ts';
import { createMetrics } from './metrics.ts';
import type { Serve } from './serve.ts';

/** How the service is started. */
export interface StartOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** `all`: API, ingest and (with Kafka) the consumers; `api`: API and ingest only. */
  readonly role: 'all' | 'api';
  /** Feed demo traffic (`DEMO=1` or `--demo`). */
  readonly demo: boolean;
  readonly serve: Serve;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  /** Where the banner goes (standard output). */
  readonly print: (line: string) => void;
}

/** The running service. */
export interface Service {
  readonly url: string;
  /** Stops in order: new requests, demo, consumers, sink, store. */
  stop(): Promise<void>;
}

/** The configured keys, or one random key of 32 URL-safe characters generated for this run. */
function apiKeys(config: Config): { keys: readonly string[]; generated: string | null } {
  if (config.apiKeys !== null) return { keys: config.apiKeys, generated: null };
  const generated = randomBytes(24).toString('base64url');
  return { keys: [generated], generated };
}

/**
 * Starts everything `options` asks for and prints the banner.
 *
 * @example
 * ```ts
 * const service = await startService({ config, logger, role: 'all', demo: false,
 *   serve: serveNode, nowUs: () => Date.now() * 1000, print: console.log });
 * ```
 */
export async function startService(options: StartOptions): Promise<Service> {
  const { config, logger, nowUs } = options;
  const store = await openStore(config.store, {
    nowMs: () => Math.floor(nowUs() / 1000),
    onError: (error) => logger.warn({ err: error }, 'store connection error'),
  });
  const stops: (() => Promise<void>)[] = [() => store.close()];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        logger.warn({ err: error }, 'stopping a part failed; stopping the rest');
      }
    }
  };
  try {
    const metrics = createMetrics({ processMetrics: true });
    const movedAside = () => metrics.countUnreadable('write');
    let sink: IngestSink;
    if (config.kafkaBrokers === null) {
      sink = directSink({
        store,
        nowUs,
        recentLogsCapacity: config.recentLogsCapacity,
        onUnreadable: (state) => {
          logger.error(state, 'a stored state could not be read; moved aside and started afresh');
          movedAside();
        },
      });
    } else {
      sink = await connectKafkaSink({
        kafka: kafkaClient(config, logger, config.kafkaBrokers),
        topics: topicNames(config.kafkaTopicPrefix),
        partitions: config.topicPartitions,
      });
    }
    stops.push(() => sink.close());
    const { keys, generated } = apiKeys(config);
    const api = createApp({
      store,
      nowUs,
      settings: { ...config, apiKeys: keys },
      metrics,
      logger,
      sink,
    });
    if (options.role === 'all' && config.kafkaBrokers !== null) {
      const consumers = await startConsumers(config, store, logger, nowUs, {
        onUnreadable: movedAside,
      });
      stops.push(() => consumers.stop());
    }
    let demo: Demo | null = null;
    if (options.demo) {
      demo = await startDemo({ sink, nowUs, maxFutureSkewUs: config.maxFutureSkewUs, logger });
      const running = demo;
      stops.push(() => running.stop());
    }
    const served = await options.serve(api.fetch, { hostname: config.host, port: config.port });
    stops.push(() => served.close());
    const setup = [
      `store: ${config.store.kind}`,
      `ingest: ${sink.kind === 'kafka' ? 'Kafka' : 'direct to the store'}`,
      options.role === 'all' && config.kafkaBrokers !== null ? 'consumers: running' : null,
    ].filter((part) => part !== null).join(', ');
    for (
      const line of bannerLines({
        url: served.url,
        generatedKey: generated,
        project: demo?.project ?? 'abcdefghijklmnopqrst',
        setup,
        demo: demo !== null,
      })
    ) {
      options.print(line);
    }
    logger.info({ url: served.url, role: options.role, demo: demo !== null }, 'listening');
    return { url: served.url, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
