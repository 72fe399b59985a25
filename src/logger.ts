/**
 * Structured JSON logs (pino). Secrets never reach a log line: the API-key header and tokens
 * are redacted by path, and no code logs a key on purpose.
 *
 * @module
 */
import { pino } from 'pino';
import type { Config } from './config.ts';
import { SERVICE_NAME } from './config/defaults.ts';

/** The logger type used across the service. */
export type Logger = pino.Logger;

/** A JSON logger at `level`, writing to standard output. */
export function createLogger(level: Config['logLevel'], name = SERVICE_NAME): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.token', 'token', 'apiKey'],
      censor: '[redacted]',
    },
  });
}
