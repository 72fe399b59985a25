/**
 * Command-line flags of `npm run replay`, parsed and validated in one place.
 *
 * @module
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { type Source, SOURCES } from '../../src/events/types.ts';
import { COMPRESSION_TYPES, type CompressionName } from '../../src/kafka/codecs/register.ts';
import { FlagError } from '../tool-args.ts';

/** The usage text printed on `--help` and after a flag error. */
export const USAGE = `usage: npm run replay -- FILE... [options]

  FILE                NDJSON events, one per line; FILE.gz is read as it streams; - reads
                      standard input. The source comes from the name (edge..., function-edge...)
                      unless --source says it.
  --source S          edge or function-edge: the source of every input
  --rate N            publish N events per second (default: as fast as the broker takes them)
  --speed X           publish at the recorded pace (the gaps between the events' own
                      timestamps) times X; 1 is real time
  --loop N            play the input N times (integer >= 1, default 1); each repeat gets new ids
  --rebase now        shift every timestamp by one offset so that the stream ends now (with
                      --speed 1: so that it proceeds at the current time)
  --keys K            project (default: keyed by project ref) or random (a producer that does
                      not key)
  --compression C     none (default), gzip, snappy, lz4 or zstd: how record batches are
                      compressed, as a log shipper's producer may set it
  --probe URL         while playing, ask the API at URL (key: PROBE_API_KEY, else the first of
                      API_KEYS) and publish markers; print and write a report
  --probe-rate N      endpoint requests per second while probing (default 30)
  --report FILE       where the report's JSON goes (default loadtest-report.json); implies
                      --probe, at http://127.0.0.1:PORT when no URL is given
`;

/** Its refusals are the tools' one kind of flag error. */
export { FlagError };

/** One input: a file (gzip when its name ends in `.gz`) or standard input (`-`). */
export interface ReplayInput {
  readonly path: string;
  readonly source: Source;
  readonly gzip: boolean;
}

/** How fast events go out. */
export type Pace =
  | { readonly kind: 'unpaced' }
  | { readonly kind: 'rate'; readonly eventsPerSecond: number }
  | { readonly kind: 'speed'; readonly factor: number };

/** The API a load test asks while it plays, and where its report goes. */
export interface ProbeCommand {
  readonly url: string;
  readonly requestsPerSecond: number;
  readonly reportPath: string;
}

/** What `npm run replay` was asked to do. */
export interface ReplayCommand {
  readonly inputs: readonly ReplayInput[];
  readonly pace: Pace;
  readonly loops: number;
  readonly rebase: boolean;
  readonly keys: 'project' | 'random';
  /** How record batches are compressed. */
  readonly compression: CompressionName;
  /** Null: no probing, no report. */
  readonly probe: ProbeCommand | null;
}

/** Default of `--report`. */
export const DEFAULT_REPORT_PATH = 'loadtest-report.json';

/**
 * Parses the flags of `npm run replay`; null when `--help` was asked for.
 *
 * @throws {FlagError} for an unknown flag, a missing input or an invalid value.
 *
 * @example
 * ```ts
 * parseReplayFlags(['edge.ndjson.gz', '--speed', '2', '--rebase', 'now']);
 * // { inputs: [{ path: 'edge.ndjson.gz', source: 'edge', gzip: true }],
 * //   pace: { kind: 'speed', factor: 2 }, loops: 1, rebase: true, keys: 'project',
 * //   compression: 'none', probe: null }
 * ```
 */
export function parseReplayFlags(
  args: readonly string[],
  defaultApiUrl = 'http://127.0.0.1:8080',
): ReplayCommand | null {
  const { values, positionals } = readFlags(args);
  if (values.help === true) return null;
  if (positionals.length === 0) {
    throw new FlagError('name at least one NDJSON file, or - for standard input');
  }
  if (positionals.filter((path) => path === '-').length > 1) {
    throw new FlagError('standard input (-) can be read only once');
  }
  const forced = values.source === undefined ? undefined : sourceFlag(values.source);
  const inputs = positionals.map((path) => ({
    path,
    source: forced ?? sourceOfName(path),
    gzip: path !== '-' && path.endsWith('.gz'),
  }));
  if (values.rate !== undefined && values.speed !== undefined) {
    throw new FlagError(
      '--rate and --speed exclude each other: choose a fixed rate or the recorded pace',
    );
  }
  const pace: Pace = values.rate !== undefined
    ? { kind: 'rate', eventsPerSecond: positive('--rate', values.rate) }
    : values.speed !== undefined
    ? { kind: 'speed', factor: positive('--speed', values.speed) }
    : { kind: 'unpaced' };
  if (values.rebase !== undefined && values.rebase !== 'now') {
    throw new FlagError(`--rebase takes one value, now: got ${JSON.stringify(values.rebase)}`);
  }
  const rebase = values.rebase === 'now';
  if (rebase && inputs.some((input) => input.path === '-') && !realTime(pace)) {
    throw new FlagError(
      '--rebase now needs the end of the stream, which standard input cannot give before it ' +
        'ends: add --speed 1 (the stream then proceeds at the current time), or save it to a file',
    );
  }
  const loops = values.loop === undefined ? 1 : loopCount(values.loop);
  if (loops > 1 && inputs.some((input) => input.path === '-')) {
    throw new FlagError(
      'standard input (-) can be played only once: save it to a file to --loop it',
    );
  }
  const keys = values.keys ?? 'project';
  if (keys !== 'project' && keys !== 'random') {
    throw new FlagError(`--keys is project or random: got ${JSON.stringify(keys)}`);
  }
  const compression = compressionFlag(values.compression ?? 'none');
  const probing = values.probe !== undefined || values.report !== undefined ||
    values['probe-rate'] !== undefined;
  return {
    inputs,
    pace,
    loops,
    rebase,
    keys,
    compression,
    probe: probing
      ? {
        url: apiUrl(values.probe ?? defaultApiUrl),
        requestsPerSecond: values['probe-rate'] === undefined
          ? 30
          : positive('--probe-rate', values['probe-rate']),
        reportPath: values.report ?? DEFAULT_REPORT_PATH,
      }
      : null,
  };
}

function apiUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new FlagError(
      `--probe must be the API's base URL, e.g. http://127.0.0.1:8080: got ${JSON.stringify(text)}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FlagError(`--probe must be an http or https URL: got ${JSON.stringify(text)}`);
  }
  return url.href.replace(/\/+$/, '');
}

/** Whether `pace` plays the stream in real time (so a rebase can anchor on its first event). */
export function realTime(pace: Pace): boolean {
  return pace.kind === 'speed' && pace.factor === 1;
}

function readFlags(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        source: { type: 'string' },
        rate: { type: 'string' },
        speed: { type: 'string' },
        loop: { type: 'string' },
        rebase: { type: 'string' },
        keys: { type: 'string' },
        compression: { type: 'string' },
        probe: { type: 'string' },
        'probe-rate': { type: 'string' },
        report: { type: 'string' },
      },
    });
  } catch (error) {
    throw new FlagError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

function compressionFlag(text: string): CompressionName {
  const names = Object.keys(COMPRESSION_TYPES);
  const name = names.find((candidate): candidate is CompressionName => candidate === text);
  if (name === undefined) {
    throw new FlagError(`--compression is ${names.join(', ')}: got ${JSON.stringify(text)}`);
  }
  return name;
}

function sourceFlag(text: string): Source {
  const source = SOURCES.find((candidate) => candidate === text);
  if (source === undefined) {
    throw new FlagError(`--source is ${SOURCES.join(' or ')}: got ${JSON.stringify(text)}`);
  }
  return source;
}

/**
 * The source a file's name tells: `edge.ndjson`, `function-edge.ndjson.gz`, or either followed
 * by `-`, `_` or `.` and more (`edge-2026-11-21.ndjson.gz`).
 */
function sourceOfName(path: string): Source {
  if (path === '-') {
    throw new FlagError('standard input (-) has no name to tell its source from: add --source');
  }
  const name = basename(path);
  // Longest first: function-edge also ends in edge.
  for (const source of [...SOURCES].sort((a, b) => b.length - a.length)) {
    if (name === source || new RegExp(`^${source}[-_.]`).test(name)) return source;
  }
  throw new FlagError(
    `cannot tell the source of ${path}: name it edge.ndjson or function-edge.ndjson ` +
      '(optionally .gz, or with a suffix such as edge-2026-11-21.ndjson.gz), or pass --source',
  );
}

function positive(flag: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new FlagError(`${flag} must be a number above 0: got ${JSON.stringify(text)}`);
  }
  return value;
}

function loopCount(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    throw new FlagError(`--loop must be an integer of at least 1: got ${JSON.stringify(text)}`);
  }
  return value;
}
