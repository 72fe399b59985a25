/**
 * Entry point of the service, on Node (`npm start`, `npm run api`) and on Deno
 * (`deno task start`): picks the runtime adapter, starts the service, and stops it cleanly on
 * SIGTERM or SIGINT (within 10 seconds).
 *
 *   npm start                 API + ingest + store, and the consumers when KAFKA_BROKERS is set
 *   npm run api               API + ingest only (scale-out role)
 *   npm start -- --demo       also feed synthetic traffic (or DEMO=1)
 *
 * @module
 */
import process from 'node:process';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import type { Serve } from './serve.ts';
import { startService } from './start.ts';

const SHUTDOWN_DEADLINE_MS = 10_000;
const USAGE = 'usage: main.ts [--role all|api] [--demo]\n';

function parseArgs(args: readonly string[]): { role: 'all' | 'api'; demo: boolean } | string {
  let role: 'all' | 'api' = 'all';
  let demo = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--demo') demo = true;
    else if (arg === '--role' || arg?.startsWith('--role=')) {
      const value = arg === '--role' ? args[++i] : arg.slice('--role='.length);
      if (value !== 'all' && value !== 'api') return `--role must be all or api: got ${value}`;
      role = value;
    } else return `unknown argument ${JSON.stringify(arg)}`;
  }
  return { role, demo };
}

async function runtimeAdapter(): Promise<Serve> {
  if ('Deno' in globalThis) return (await import('./serve-deno.ts')).serveDeno;
  return (await import('./serve-node.ts')).serveNode;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n${USAGE}`);
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, 'api');
  const starting = startService({
    config,
    logger,
    role: args.role,
    demo: args.demo || config.demo,
    serve: await runtimeAdapter(),
    nowUs: () => Date.now() * 1000,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  let service;
  try {
    service = await starting;
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    process.stderr.write(
      `could not start: ${error instanceof Error ? error.message : String(error)}\n` +
        'check the store and Kafka settings (REDIS_URL, UPSTASH_REDIS_REST_URL, KAFKA_BROKERS)\n',
    );
    process.exit(1);
  }
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'stopping');
    const deadline = setTimeout(() => {
      logger.error(`shutdown took longer than ${SHUTDOWN_DEADLINE_MS / 1000} s; exiting`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

await main();
