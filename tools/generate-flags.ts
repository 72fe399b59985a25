/**
 * Command-line flags of `tools/generate.ts`, parsed and validated in one place.
 *
 * @module
 */

import { parseArgs } from 'node:util';
import { parseDuration } from '../src/time/duration.ts';
import { parseTimestamp } from '../src/time/timestamp.ts';
import { GENERATOR_DEFAULTS, type GeneratorOptions } from '../src/synthetic/generator.ts';
import { FlagError } from './tool-args.ts';

/** What `tools/generate.ts` was asked to do. */
export interface GenerateCommand {
  /** Output directory: `edge.ndjson` and `function-edge.ndjson` are written there. */
  readonly out: string;
  readonly options: GeneratorOptions;
}

/** The usage text printed on `--help` and after a flag error. */
export const USAGE = `usage: npm run generate -- --events N --out DIR [options]

  --events N          lines to write, both sources together (required, integer >= 0)
  --out DIR           output directory, created if missing (required)
  --seed S            PRNG seed, any safe integer (default 1)
  --span D            time span ending at --now: 30s, 15m, 1h, 7d (default 1h)
  --now ISO           end of the span, RFC 3339 with a zone (default: the current time)
  --out-of-order F    share of late events, 0..1 (default 0)
  --invalid F         share of invalid events, 0..1 (default 0)
  --projects N        number of projects, integer >= 1 (default ${GENERATOR_DEFAULTS.projects})
  --edge-share F      share of edge events, 0..1 (default ${GENERATOR_DEFAULTS.edgeShare})
`;

/** Its refusals are the tools' one kind of flag error. */
export { FlagError };

/**
 * Parses the flags of `tools/generate.ts`; null when `--help` was asked for. `nowUs` is the
 * default of `--now` (the clock is injected).
 *
 * @throws {FlagError} for an unknown flag, a missing required flag or an invalid value.
 *
 * @example
 * ```ts
 * parseGenerateFlags(['--events', '1000', '--out', 'data', '--span', '15m'], 1_795_256_130_000_000);
 * // { out: 'data', options: { seed: 1, events: 1000, spanUs: 900000000, nowUs: 1795256130000000, ... } }
 * ```
 */
export function parseGenerateFlags(args: readonly string[], nowUs: number): GenerateCommand | null {
  const values = readFlags(args);
  if (values.help === true) return null;
  if (values.events === undefined) throw new FlagError('--events is required: the number of lines');
  if (values.out === undefined || values.out === '') {
    throw new FlagError('--out is required: the output directory');
  }
  return {
    out: values.out,
    options: {
      events: integer('--events', values.events, 0),
      seed: integer('--seed', values.seed ?? '1', Number.MIN_SAFE_INTEGER),
      spanUs: duration('--span', values.span ?? '1h'),
      nowUs: values.now === undefined ? nowUs : instant('--now', values.now),
      outOfOrder: share('--out-of-order', values['out-of-order'] ?? '0'),
      invalid: share('--invalid', values.invalid ?? '0'),
      projects: integer('--projects', values.projects ?? String(GENERATOR_DEFAULTS.projects), 1),
      edgeShare: share(
        '--edge-share',
        values['edge-share'] ?? String(GENERATOR_DEFAULTS.edgeShare),
      ),
    },
  };
}

function readFlags(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean', short: 'h' },
        events: { type: 'string' },
        out: { type: 'string' },
        seed: { type: 'string' },
        span: { type: 'string' },
        now: { type: 'string' },
        'out-of-order': { type: 'string' },
        invalid: { type: 'string' },
        projects: { type: 'string' },
        'edge-share': { type: 'string' },
      },
    }).values;
  } catch (error) {
    // parseArgs reports unknown flags, missing values and positionals as TypeErrors.
    if (error instanceof TypeError) throw new FlagError(error.message, { cause: error });
    throw error;
  }
}

function integer(flag: string, text: string, min: number): number {
  const value = /^-?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new FlagError(`${flag} must be an integer >= ${min}: got ${JSON.stringify(text)}`);
  }
  return value;
}

function share(flag: string, text: string): number {
  const value = text.trim() === '' ? NaN : Number(text);
  if (!(value >= 0 && value <= 1)) {
    throw new FlagError(`${flag} must be a number from 0 to 1: got ${JSON.stringify(text)}`);
  }
  return value;
}

function duration(flag: string, text: string): number {
  try {
    const us = parseDuration(text);
    if (us < 1) throw new RangeError('a span must be longer than zero');
    return us;
  } catch (error) {
    if (error instanceof RangeError) {
      throw new FlagError(`${flag}: ${error.message}`, { cause: error });
    }
    throw error;
  }
}

function instant(flag: string, text: string): number {
  const us = parseTimestamp(text);
  if (us === null) {
    throw new FlagError(
      `${flag} must be an RFC 3339 timestamp with a zone, e.g. 2026-11-21T10:15:00Z: got ${
        JSON.stringify(text)
      }`,
    );
  }
  return us;
}
