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
import { readApiCounts } from './read/api-counts.ts';
import type { ReadContext } from './read/context.ts';
import { invocationStatsRowJson, readInvocationStats } from './read/invocation-stats.ts';
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
   * The same rows (at most `maxRows`) as the UTF-8 bytes of a JSON array with `before` and
   * `after` around it, where the store holds them ready to send (absent: the rows of `read`,
   * serialized).
   */
  readonly readJson?: (
    context: ReadContext,
    params: P,
    maxRows: number,
    before: Uint8Array,
    after: Uint8Array,
  ) => Promise<Uint8Array<ArrayBuffer>>;
  /** One row of `read` as the JSON text `JSON.stringify` writes (absent: `JSON.stringify`). */
  readonly rowJson?: (row: R) => string;
}

type Descriptors = {
  readonly [N in EndpointName]: EndpointDescriptor<EndpointParams[N], EndpointRows[N]>;
};

/** The descriptor of every endpoint. */
export const DESCRIPTORS: Descriptors = {
  'functions.invocation-stats': {
    parse: parseInvocationStatsParams,
    read: readInvocationStats,
    rowJson: invocationStatsRowJson,
  },
  'logs.all': { parse: parseLogsAllParams, read: readLogsAll, readJson: readLogsAllJson },
  'usage.api-counts': { parse: parseApiCountsParams, read: readApiCounts },
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
  | { readonly ok: true; readonly json: Uint8Array<ArrayBuffer> }
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
 * {@link answerEndpoint}'s rows as a JSON array: what the HTTP API sends. An endpoint whose store
 * holds its rows ready to send (`readJson`) is answered in bytes, without decoding or parsing
 * them.
 */
export async function answerEndpointJson<N extends EndpointName>(
  name: N,
  source: ParamSource,
  context: ReadContext,
  options: AnswerOptions = {},
): Promise<JsonAnswer> {
  const descriptor: EndpointDescriptor<EndpointParams[N], EndpointRows[N]> = DESCRIPTORS[name];
  const readJson = descriptor.readJson;
  const { before, after } = options.frame ?? NO_FRAME;
  if (readJson !== undefined) {
    const maxRows = rowCap(options);
    const answer = await answerWith(
      descriptor.parse,
      (params) => readJson(context, params, maxRows, UTF8.encode(before), UTF8.encode(after)),
      source,
    );
    return answer.ok ? { ok: true, json: answer.value } : answer;
  }
  const answer = await answerEndpoint(name, source, context, options);
  if (!answer.ok) return answer;
  const rowJson = descriptor.rowJson;
  const rows = rowJson === undefined
    ? JSON.stringify(answer.rows)
    : `[${answer.rows.map((row) => rowJson(row)).join(',')}]`;
  return { ok: true, json: UTF8.encode(`${before}${rows}${after}`) };
}
