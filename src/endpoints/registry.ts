/**
 * One descriptor per endpoint, in one registry that everything uses: how its parameters are
 * read (the contract's parser) and how it is answered from the rollups (the read side).
 * Answering is written once, for any endpoint, and the row cap of the endpoint record is applied
 * in one place. The reference evaluator (`src/reference/evaluate.ts`), which checks both, has its
 * own parameter reading and is not registered here.
 *
 * @example
 * ```ts
 * const answer = await answerEndpoint('logs.all', new URLSearchParams('project=p&project_tier=PRO'), context);
 * ```
 *
 * @module
 */
import type { ApiCountsParams } from '../contract/params/api-counts.ts';
import { parseApiCountsParams } from '../contract/params/api-counts.ts';
import {
  type ParamError,
  ParamRefusal,
  type ParamResult,
  type ParamSource,
} from '../contract/params/common.ts';
import type { InvocationStatsParams } from '../contract/params/invocation-stats.ts';
import { parseInvocationStatsParams } from '../contract/params/invocation-stats.ts';
import type { LogsAllParams } from '../contract/params/logs-all.ts';
import { parseLogsAllParams } from '../contract/params/logs-all.ts';
import { type EndpointName, MAX_ROWS } from '../contract/registry.ts';
import type { EndpointRows } from '../contract/rows.ts';
import { readApiCounts, readApiCountsJson } from './read/api-counts.ts';
import type { ReadContext } from './read/context.ts';
import type { AnswerLimits, RowsJson } from './read/rows-json.ts';

export type { AnswerLimits, RowsJson };
import { readInvocationStats, readInvocationStatsJson } from './read/invocation-stats.ts';
import { readLogsAll, readLogsAllJson } from './read/logs-all.ts';

/** The typed parameters of each endpoint. */
export interface EndpointParams {
  readonly 'functions.invocation-stats': InvocationStatsParams;
  readonly 'logs.all': LogsAllParams;
  readonly 'usage.api-counts': ApiCountsParams;
}

/** Everything the service knows of one endpoint's answers. */
export interface EndpointDescriptor<P, R> {
  /** Reads the parameters, or says what is wrong with them. */
  readonly parse: (source: ParamSource) => ParamResult<P>;
  /** The rows from the rollups in the store; rejects only when the store fails. */
  readonly read: (context: ReadContext, params: P) => Promise<R[]>;
  /**
   * The same rows (within `limits`) as the UTF-8 bytes of a JSON array with `before` and `after`
   * around it: each row written straight into the answer's bytes, byte for byte what
   * `JSON.stringify` writes for the rows of `read`.
   */
  readonly readJson: (
    context: ReadContext,
    params: P,
    limits: AnswerLimits,
    before: Uint8Array,
    after: Uint8Array,
  ) => Promise<RowsJson>;
}

type Descriptors = {
  readonly [N in EndpointName]: EndpointDescriptor<EndpointParams[N], EndpointRows[N]>;
};

/** The descriptor of every endpoint. */
export const DESCRIPTORS: Descriptors = {
  'functions.invocation-stats': {
    parse: parseInvocationStatsParams,
    read: readInvocationStats,
    readJson: readInvocationStatsJson,
  },
  'logs.all': { parse: parseLogsAllParams, read: readLogsAll, readJson: readLogsAllJson },
  'usage.api-counts': {
    parse: parseApiCountsParams,
    read: readApiCounts,
    readJson: readApiCountsJson,
  },
};

/** Rows of an endpoint, or why its parameters were refused. */
export type Answer<N extends EndpointName> =
  | { readonly ok: true; readonly rows: EndpointRows[N][] }
  | { readonly ok: false; readonly error: ParamError };

/**
 * The rows of an endpoint as the UTF-8 bytes of a JSON array within its frame (see
 * {@link AnswerOptions.frame}), or why its parameters were refused.
 */
export type JsonAnswer =
  | ({ readonly ok: true } & RowsJson)
  | { readonly ok: false; readonly error: ParamError };

/** Options of {@link answerEndpoint}. */
export interface AnswerOptions {
  /** Row cap of the endpoint record. Default {@link MAX_ROWS}. */
  readonly maxRows?: number;
  /**
   * Text that {@link answerEndpointJson} puts before and after the rows' array (the envelope of
   * the HTTP answer), so that an answer in bytes is written once, not copied into its envelope.
   * Default: none.
   */
  readonly frame?: { readonly before: string; readonly after: string };
  /**
   * Most bytes of the framed answer of {@link answerEndpointJson}: the rows that would go beyond
   * are left out, whole, and the answer says so (`truncated`). Default: no limit.
   */
  readonly maxBytes?: number;
}

const NO_FRAME = { before: '', after: '' };
const UTF8 = new TextEncoder();

function rowCap(options: AnswerOptions): number {
  const maxRows = options.maxRows ?? MAX_ROWS;
  if (!Number.isSafeInteger(maxRows) || maxRows < 1) {
    throw new RangeError(`maxRows must be a positive integer: got ${maxRows}`);
  }
  return maxRows;
}

function byteCap(options: AnswerOptions): number {
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  if (Number.isNaN(maxBytes) || maxBytes < 1) {
    throw new RangeError(`maxBytes must be a positive number of bytes: got ${maxBytes}`);
  }
  return maxBytes;
}

/**
 * The JSON texts of rows as the UTF-8 bytes of one array within `frame`, as many of them, from
 * the first, as fit in `maxBytes` (the frame and brackets included).
 *
 * @example
 * ```ts
 * framedRows(['{"a":1}', '{"a":2}'], { before: '{"result":', after: '}' }, 20);
 * // { json: <{"result":[{"a":1}]}>, rows: 1, truncated: true }
 * ```
 */
export function framedRows(
  texts: readonly string[],
  frame: { readonly before: string; readonly after: string },
  maxBytes: number,
): RowsJson {
  const whole = UTF8.encode(`${frame.before}[${texts.join(',')}]${frame.after}`);
  if (whole.byteLength <= maxBytes) return { json: whole, rows: texts.length, truncated: false };
  let size = UTF8.encode(`${frame.before}[]${frame.after}`).byteLength;
  let rows = 0;
  for (const text of texts) {
    const added = UTF8.encode(text).byteLength + (rows === 0 ? 0 : 1);
    if (size + added > maxBytes) break;
    size += added;
    rows++;
  }
  const json = UTF8.encode(`${frame.before}[${texts.slice(0, rows).join(',')}]${frame.after}`);
  return { json, rows, truncated: true };
}

function cap<R>(rows: R[], options: AnswerOptions): R[] {
  const maxRows = rowCap(options);
  return rows.length > maxRows ? rows.slice(0, maxRows) : rows;
}

/** Reads `source` with `parse`, then the answer with `read`; refusals become answers. */
async function answerWith<P, T>(
  parse: (source: ParamSource) => ParamResult<P>,
  read: (params: P) => Promise<T>,
  source: ParamSource,
): Promise<
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ParamError }
> {
  const parsed = parse(source);
  if (!parsed.ok) return parsed;
  try {
    return { ok: true, value: await read(parsed.params) };
  } catch (error) {
    if (error instanceof ParamRefusal) return { ok: false, error: error.error };
    throw error;
  }
}

/**
 * The rows of endpoint `name` for `source` at `context.nowUs`, from the rollups. Rejects only
 * when the store fails (the caller answers 503); bad parameters, also those refused while
 * reading ({@link ParamRefusal}), resolve to `{ ok: false, error }`.
 */
export async function answerEndpoint<N extends EndpointName>(
  name: N,
  source: ParamSource,
  context: ReadContext,
  options: AnswerOptions = {},
): Promise<Answer<N>> {
  const descriptor: EndpointDescriptor<EndpointParams[N], EndpointRows[N]> = DESCRIPTORS[name];
  const answer = await answerWith(
    descriptor.parse,
    async (params) => cap(await descriptor.read(context, params), options),
    source,
  );
  return answer.ok ? { ok: true, rows: answer.value } : answer;
}

/**
 * {@link answerEndpoint}'s rows as a JSON array within `options.frame`: what the HTTP API sends,
 * written as bytes without a text per row.
 */
export async function answerEndpointJson<N extends EndpointName>(
  name: N,
  source: ParamSource,
  context: ReadContext,
  options: AnswerOptions = {},
): Promise<JsonAnswer> {
  const descriptor: EndpointDescriptor<EndpointParams[N], EndpointRows[N]> = DESCRIPTORS[name];
  const frame = options.frame ?? NO_FRAME;
  const limits = { maxRows: rowCap(options), maxBytes: byteCap(options) };
  const answer = await answerWith(
    descriptor.parse,
    (params) =>
      descriptor.readJson(
        context,
        params,
        limits,
        UTF8.encode(frame.before),
        UTF8.encode(frame.after),
      ),
    source,
  );
  return answer.ok ? { ok: true, ...answer.value } : answer;
}
