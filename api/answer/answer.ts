/**
 * Answers of the three endpoints as the HTTP API serves them: the rows of the endpoint registry
 * (with the host cache finding the hosts of `usage.api-counts`), serialized once with their
 * entity tag, and shared by identical requests through the {@link Coalescer}.
 *
 * @module
 */
import { type ParamError, readParam } from '../../src/contract/params/common.ts';
import { literalOf } from '../../src/contract/params/api-counts.ts';
import type { HttpError } from '../errors.ts';
import type { EndpointRecord } from '../../src/contract/registry.ts';
import type { ReadContext } from '../../src/endpoints/read/context.ts';
import {
  answerEndpoint,
  answerEndpointJson,
  framedRows,
  type RowsJson,
} from '../../src/endpoints/registry.ts';
import { turnEvery } from '../../src/async/next-turn.ts';
import { redactAddresses } from '../../src/text/redact-addresses.ts';
import { etagOfAnswer } from '../middleware/etag.ts';
import type { Coalescer } from './coalesce.ts';
import type { HostCache } from './host-cache.ts';
import { type MatchShare, ShareRefusal } from './match-gate.ts';

/**
 * A serialized answer, or why the parameters were refused. The body is kept as UTF-8 bytes: an
 * answer reused by many requests is encoded once, not once per response.
 */
export type Computed =
  | {
    readonly ok: true;
    readonly body: Uint8Array<ArrayBuffer>;
    readonly etag: string;
    /** Set when rows were left out to keep the body within `maxBytes`: the rows sent. */
    readonly truncated: { readonly rows: number; readonly maxBytes: number } | null;
  }
  | { readonly ok: false; readonly error: ParamError };

/**
 * Said on an answer whose rows were cut to keep it within the byte limit (`HTTP_ANSWER_MAX_BYTES`):
 * `rows=<rows sent>; max-bytes=<the limit>`. The rows sent are the first ones, each whole.
 */
export const TRUNCATED_HEADER = 'X-Result-Truncated';

/** How one answer is asked for. */
export interface AnswerOptions {
  /** Replace every IPv4 and IPv6 address in the rows' strings; default: the record's `redactPii`. */
  readonly redactPii?: boolean;
  /**
   * The asking caller's share of costly pattern matching (default: unlimited). Identical
   * requests share one answer: the one that computes it is charged (and only its own request is
   * refused when its share runs out).
   */
  readonly matchShare?: MatchShare;
  /**
   * Computed now, neither joining nor kept for identical requests: a live answer computed again
   * after a commit must not be one read before it.
   */
  readonly fresh?: boolean;
}

/** Answers `record` for `params`; rejects only when the store fails. */
export type Answerer = (
  record: EndpointRecord,
  params: URLSearchParams,
  options?: AnswerOptions,
) => Promise<Computed>;

/** What {@link createAnswerer} reads with. */
export interface AnswererDeps {
  readonly context: () => ReadContext;
  readonly hosts: HostCache;
  readonly coalescer: Coalescer<Computed>;
  /** Most bytes of one answer's body; rows beyond are left out whole. */
  readonly maxBytes: number;
  /**
   * Told of each answer: `reused` when it shared another request's computation (in flight, or
   * kept for the result window), `computed` when this request started one (a refresh included).
   */
  readonly onAnswer?: (endpoint: string, how: 'reused' | 'computed') => void;
}

/** The envelope of every answer's rows: `{"result":[…]}`. */
export const RESULT_FRAME = { before: '{"result":', after: '}' };

/**
 * The key of identical requests: the endpoint and the values of the parameters it reads (last
 * value of each, absent distinct from empty). Unknown and ignored parameters (`sql`, `lql`) do
 * not split the key: the answer does not depend on them.
 *
 * @example
 * ```ts
 * requestKey(record, new URLSearchParams('interval=1hr&project=p&utm=x'));
 * // '["functions.invocation-stats","p",null,"1hr"]'
 * ```
 */
export function requestKey(record: EndpointRecord, params: URLSearchParams): string {
  const names = record.parameters.map((parameter) => parameter.name);
  return JSON.stringify([record.name, ...names.map((name) => readParam(params, name))]);
}

/**
 * `rows` with every address redacted, giving other work a turn after each 10 ms of it: a row may
 * hold up to 128 KiB of text, about 0.2 s of redaction at worst (`npm run bench:redact`), so a
 * whole answer must not hold the event loop at once.
 */
async function redactRows<R>(rows: readonly R[]): Promise<R[]> {
  const turn = turnEvery(10);
  const redacted: R[] = [];
  for (const row of rows) {
    redacted.push(redactAddresses(row));
    await turn();
  }
  return redacted;
}

/**
 * The 429 of a caller whose share of matching is used up and who asks a pattern that is not a
 * plain ref; else null. Refused before it is compiled: compiling the largest pattern accepted
 * costs about 5 ms, which a key sending new patterns as fast as it is refused would otherwise
 * make the process spend at its request rate.
 */
function patternRefusal(
  record: EndpointRecord,
  params: URLSearchParams,
  share: MatchShare,
): HttpError | null {
  for (const parameter of record.parameters) {
    if (parameter.pattern !== true) continue;
    const value = readParam(params, parameter.name);
    if (value !== null && value !== '' && literalOf(value) === null) return share.refusal();
  }
  return null;
}

/**
 * A function answering `record` for `params`; rejects only when the store fails, or with a 429
 * when the caller's share of matching is used up and it asks a pattern that is not a plain ref.
 *
 * @example
 * ```ts
 * const answer = createAnswerer({ context, hosts, coalescer, maxBytes: 2 * 1024 * 1024 });
 * const computed = await answer(record, new URLSearchParams('project=p&interval=1hr'));
 * if (computed.ok) console.log(computed.etag);
 * ```
 */
export function createAnswerer(
  deps: AnswererDeps,
): Answerer {
  return (record, params, options = {}) => {
    const redactPii = options.redactPii ?? record.redactPii;
    const share = options.matchShare;
    const refusal = share === undefined ? null : patternRefusal(record, params, share);
    if (refusal !== null) return Promise.reject(refusal);
    const key = `${requestKey(record, params)}${redactPii ? ':redacted' : ''}`;
    let computed = false;
    const compute = async (): Promise<Computed> => {
      computed = true;
      const base = deps.context();
      const hosts = deps.hosts;
      const context: ReadContext = {
        ...base,
        matchHosts: (pattern, sinceUs) => hosts.matching(pattern, share)(context, sinceUs),
      };
      const options = { maxRows: record.maxRows, frame: RESULT_FRAME, maxBytes: deps.maxBytes };
      let sent: RowsJson;
      if (redactPii) {
        // Redaction walks the rows' strings: they are read as values.
        const answer = await answerEndpoint(record.name, params, context, options);
        if (!answer.ok) return answer;
        const texts = (await redactRows(answer.rows)).map((row) => JSON.stringify(row));
        sent = framedRows(texts, RESULT_FRAME, deps.maxBytes);
      } else {
        const answer = await answerEndpointJson(record.name, params, context, options);
        if (!answer.ok) return answer;
        sent = answer;
      }
      return {
        ok: true,
        body: sent.json,
        etag: etagOfAnswer(sent),
        truncated: sent.truncated ? { rows: sent.rows, maxBytes: deps.maxBytes } : null,
      };
    };
    const answered = options.fresh === true
      ? compute()
      : coalesced(deps.coalescer, key, compute, share);
    const onAnswer = deps.onAnswer;
    if (onAnswer === undefined) return answered;
    return answered.then((result) => {
      onAnswer(record.name, computed ? 'computed' : 'reused');
      return result;
    });
  };
}

/**
 * The shared answer for `key`. One computed with another caller's share, refused because that
 * share ran out, is that caller's 429, not this one's: this caller computes again (or joins the
 * next computation), charged to its own share. The refused computation is forgotten before this
 * caller sees its failure, so the next run starts afresh.
 */
async function coalesced(
  coalescer: Coalescer<Computed>,
  key: string,
  compute: () => Promise<Computed>,
  share: MatchShare | undefined,
): Promise<Computed> {
  for (;;) {
    try {
      return await coalescer.run(key, compute);
    } catch (error) {
      if (!ShareRefusal.ofAnother(error, share)) throw error;
    }
  }
}
