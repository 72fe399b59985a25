/**
 * Entry point of the consumer role (`npm run consumers`): folds Kafka into the configured
 * store until SIGTERM or SIGINT, then stops within 10 seconds.
 *
 * @module
 */
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openStore } from '../src/store/open.ts';
import { startConsumers } from './start.ts';

const SHUTDOWN_DEADLINE_MS = 10_000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`configuration: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, 'consumers');
  if (config.store.kind === 'memory') {
    logger.warn(
      "no REDIS_URL or UPSTASH_REDIS_REST_URL: folding into this process's memory, " +
        'which no separate API process can read',
    );
  }
  const clock = () => Date.now() * 1000;
  const store = await openStore(config.store, {
    nowMs: Date.now,
    onError: (error) => logger.warn({ err: error }, 'store connection error'),
  });
  const consumers = await startConsumers(config, store, logger, clock);
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'stopping: flushing and disconnecting');
    const deadline = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    void consumers.stop().then(() => store.close()).then(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

await main();
