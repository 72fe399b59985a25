/**
 * The kafkajs client of every part that talks to Kafka (consumers, the Kafka ingest sink,
 * tools): one place that knows the client id, the retry policy and how kafkajs logs reach ours.
 *
 * @module
 */
import { Kafka, type LogEntry, logLevel as kafkaLogLevel } from 'kafkajs';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';

/** kafkajs log lines through our logger, at warn and above. */
function kafkaLogCreator(logger: Logger) {
  return () => ({ level, log }: LogEntry) => {
    const { message, ...extra } = log;
    if (level === kafkaLogLevel.ERROR) logger.error({ kafka: extra }, message);
    else if (level === kafkaLogLevel.WARN) logger.warn({ kafka: extra }, message);
  };
}

/**
 * The kafkajs client for `brokers`.
 *
 * @example
 * ```ts
 * const kafka = kafkaClient(config, logger, ['127.0.0.1:9092']);
 * const admin = kafka.admin();
 * ```
 */
export function kafkaClient(
  config: Pick<Config, 'kafkaClientId'>,
  logger: Logger,
  brokers: readonly string[],
): Kafka {
  return new Kafka({
    clientId: config.kafkaClientId,
    brokers: [...brokers],
    logLevel: kafkaLogLevel.WARN,
    logCreator: kafkaLogCreator(logger),
    retry: { retries: 8, initialRetryTime: 200 },
  });
}
