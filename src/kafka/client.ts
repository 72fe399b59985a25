/**
 * The kafkajs client of every part that talks to Kafka (consumers, the Kafka ingest sink,
 * tools): one place that knows the client id, TLS and SASL, the retry policy and how kafkajs logs
 * reach ours.
 *
 * @module
 */
import { Kafka, type LogEntry, logLevel as kafkaLogLevel } from 'kafkajs';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { kafkaSecurityOptions } from './security.ts';
import { registerCodecs } from './codecs/register.ts';

/**
 * kafkajs lines that say nothing a user can act on, kept at debug: a failed response, send or
 * connection attempt is logged by kafkajs before it retries (a just-created topic, a broker
 * restarting), and what persists surfaces as the error of the call, which we log where it lands.
 * The warning on limited retries of an idempotent producer is our choice: delivery is documented
 * as at least once (a send that gave up is retried by its caller or its flush). A consumer
 * group's crash and restart are reported by the consumer runner, which knows whether kafkajs
 * retries it (one line) or not (an error with its stack). A refused SASL login surfaces as the
 * error of the call too, where kafka/failure.ts names the settings to fix.
 */
const QUIET = new RegExp(
  '^(Response |Connection error|Connection timeout|Failed to connect to (seed )?broker|' +
    'Failed to send messages: |Limiting retries for the idempotent producer|' +
    'Crash: |Restarting the consumer in |SASL \\S+ (\\S+ )?authentication failed)',
);

/** kafkajs log lines through our logger, at warn and above (see {@link QUIET}). */
function kafkaLogCreator(logger: Logger) {
  return () => ({ level, log }: LogEntry) => {
    const { message, ...extra } = log;
    if (level > kafkaLogLevel.WARN) return;
    if (QUIET.test(message)) logger.debug({ kafka: extra }, message);
    else if (level === kafkaLogLevel.ERROR) logger.error({ kafka: extra }, message);
    else logger.warn({ kafka: extra }, message);
  };
}

/** Whether `error` is kafkajs saying a broker cannot be reached (it retries, and so do we). */
export function isKafkaAway(error: unknown): boolean {
  if (!(error instanceof Error) || !error.name.startsWith('KafkaJS')) return false;
  // Its retries given up (named without `Error`): away when what it retried was.
  if (error.name === 'KafkaJSNumberOfRetriesExceeded') return isKafkaAway(error.cause);
  return (error as { retriable?: unknown }).retriable === true ||
    /^KafkaJS(Connection|ConnectionClosed|RequestTimeout)Error$/.test(error.name);
}

/**
 * The kafkajs client for `brokers`, reading and writing every compression type Kafka has (see
 * {@link registerCodecs}).
 *
 * @example
 * ```ts
 * const kafka = kafkaClient(config, logger, ['127.0.0.1:9092']);
 * const admin = kafka.admin();
 * ```
 */
export function kafkaClient(
  config: Pick<Config, 'kafkaClientId' | 'kafkaSecurity'>,
  logger: Logger,
  brokers: readonly string[],
): Kafka {
  registerCodecs();
  return new Kafka({
    clientId: config.kafkaClientId,
    brokers: [...brokers],
    ...kafkaSecurityOptions(config.kafkaSecurity),
    logLevel: kafkaLogLevel.WARN,
    logCreator: kafkaLogCreator(logger),
    retry: { retries: 8, initialRetryTime: 200 },
  });
}
