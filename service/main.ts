/**
 * The entry point of every role, on Node (`npm start`, `npm run api`, `npm run consumers`) and
 * on Deno (`deno task start`): reads the configuration, picks the runtime adapter, starts the
 * role, and stops it cleanly on SIGTERM or SIGINT (within 10 seconds). Every role fails the same
 * way: a bad setting or a service that cannot be reached at start ends the process with exit code
 * 2 or 1 and one message that says what to check, never a stack trace on its own.
 *
 *   npm start                 API + ingest + store, and the consumers when KAFKA_BROKERS is set
 *   npm run api               API + ingest only (scale-out role)
 *   npm run consumers         the consumer group only
 *   npm start -- --demo       also feed synthetic traffic (or DEMO=1)
 *
 * @module
 */
import process from 'node:process';
import v8 from 'node:v8';
import type { Serve } from '../api/adapters/serve.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { type Role, ROLES, type Service, startService } from './start.ts';
import { messageOf } from '../src/text/error-message.ts';
import { RUNTIME_V8_FLAGS } from './heap-flags.ts';
import {
  processMemoryFacts,
  unsizedYoungGeneration,
  youngGenerationWarning,
} from './young-generation.ts';

const SHUTDOWN_DEADLINE_MS = 10_000;
const USAGE = `usage: main.ts [--role ${ROLES.join('|')}] [--demo]\n`;

function isRole(value: string | undefined): value is Role {
  return ROLES.some((role) => role === value);
}

function parseArgs(args: readonly string[]): { role: Role; demo: boolean } | string {
  let role: Role = 'all';
  let demo = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--demo') demo = true;
    else if (arg === '--role' || arg?.startsWith('--role=')) {
      const value = arg === '--role' ? args[++i] : arg.slice('--role='.length);
      if (!isRole(value)) return `--role must be one of ${ROLES.join(', ')}: got ${value}`;
      role = value;
    } else return `unknown argument ${JSON.stringify(arg)}`;
  }
  if (demo && role === 'consumers') return '--demo needs the API: use --role all or api';
  return { role, demo };
}

async function runtimeAdapter(): Promise<Serve> {
  if ('Deno' in globalThis) return (await import('../api/adapters/deno.ts')).serveDeno;
  return (await import('../api/adapters/node.ts')).serveNode;
}

function fail(exitCode: number, message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === 'string') fail(2, `${args}\n${USAGE}`);
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(2, `configuration: ${error.message}`);
    throw error;
  }
  const logger = createLogger(config.logLevel, args.role === 'consumers' ? 'consumers' : 'api');
  for (const flag of RUNTIME_V8_FLAGS) v8.setFlagsFromString(flag);
  const unsized = unsizedYoungGeneration(args.role, processMemoryFacts());
  if (unsized !== null) logger.warn(unsized, youngGenerationWarning(unsized));
  // Whatever escapes a running part is a defect: say so once, clearly, and exit.
  const crash = (error: unknown) => {
    logger.fatal({ err: error }, 'unexpected error; exiting');
    fail(1, `stopped by an unexpected error: ${messageOf(error)}`);
  };
  process.on('unhandledRejection', crash);
  process.on('uncaughtException', crash);

  let service: Service;
  try {
    service = await startService({
      config,
      logger,
      role: args.role,
      demo: args.demo || (config.demo && args.role !== 'consumers'),
      serve: await runtimeAdapter(),
      nowUs: () => Date.now() * 1000,
      print: (line) => process.stdout.write(`${line}\n`),
      onFatal: (message) => {
        logger.fatal(message);
        fail(2, `stopped: ${message}`);
      },
    });
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    fail(
      1,
      `could not start: ${messageOf(error)}\n` +
        'check the store and Kafka settings (REDIS_URL, UPSTASH_REDIS_REST_URL, KAFKA_BROKERS)',
    );
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
  // A launcher in front (deno task, npm, a terminal's Ctrl-C to the whole process group) may
  // deliver a stop signal twice: the listeners stay, so a second one does not cut the shutdown
  // short (the default action would kill the process mid-stop); the deadline above still bounds it.
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) return;
    stopping = true;
    shutdown(signal);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
}

await main();
