/**
 * `logs.all` with a caller's `sql` when the sandbox is on (`LOGS_ALL_SQL=sandboxed`): parameters
 * read as `logs.all` reads them (`project`, `iso_timestamp_start`, `iso_timestamp_end`), the query
 * run over the project's source tables, the rows answered as the reference system answers them,
 * `{"result": [...]}`. A query the sandbox refuses is a 400 whose `error.message` names why;
 * queries beyond the process's bound wait for none: they are answered 429.
 *
 * @module
 */
import { parseLogsAllParams } from '../../src/contract/params/logs-all.ts';
import { readParam } from '../../src/contract/params/common.ts';
import { answerSandboxed, type SandboxedDeps } from '../../src/endpoints/read/sandboxed-logs.ts';
import { SqlRefusal, SqlTimeout } from '../../src/logs-sql/sql-refusal.ts';
import type { SqlOutcome } from '../metrics.ts';
import { redactAddresses } from '../../src/text/redact-addresses.ts';
import { HttpError, RETRY_AFTER_SECONDS } from '../errors.ts';
import { etagOf } from '../middleware/etag.ts';
import type { Computed } from './answer.ts';

/** What the sandbox answers with. */
export interface SandboxedSqlDeps {
  /** The reading environment of one call (the store and now). */
  readonly context: () => Pick<SandboxedDeps, 'store' | 'nowUs' | 'guardRead'>;
  /** The engine (on its own thread, within its time limit). */
  readonly engine: SandboxedDeps['engine'];
  readonly capacity: number;
  readonly maxBytes: number;
  /** Most queries at once in this process. */
  readonly maxConcurrent: number;
  /** Most queries at once of one API key (so that one caller cannot hold every slot). */
  readonly maxConcurrentPerKey: number;
  /** Most bytes of one answer's body; rows beyond are left out whole. */
  readonly answerMaxBytes: number;
  /** Told how each query ended. */
  readonly onOutcome: (outcome: SqlOutcome) => void;
}

/**
 * Answers a sandboxed call, its rows' addresses redacted when `redactPii` (as every answer's);
 * null for a call without `sql` (answered as any `logs.all`).
 */
export type SandboxedAnswerer = (
  params: URLSearchParams,
  redactPii: boolean,
  /** The caller: the position of its API key (null: no valid key). */
  caller: number | null,
) => Promise<Computed> | null;

const ENCODER = new TextEncoder();
const FRAME_BYTES = '{"result":[]}'.length;

/**
 * The body `{"result": rows}`, with the rows that fit in `maxBytes` (each whole); a cut, by the
 * byte bound or by the engine's {@link MAX_RESULT_ROWS}, is said in the answer's truncation.
 */
function computed(
  rows: readonly unknown[],
  cutByEngine: boolean,
  maxBytes: number,
): Computed {
  const texts: string[] = [];
  let bytes = FRAME_BYTES;
  for (const row of rows) {
    const text = JSON.stringify(row);
    const more = ENCODER.encode(text).byteLength + (texts.length === 0 ? 0 : 1);
    if (bytes + more > maxBytes) break;
    texts.push(text);
    bytes += more;
  }
  const body = ENCODER.encode(`{"result":[${texts.join(',')}]}`);
  const cut = cutByEngine || texts.length < rows.length;
  return {
    ok: true,
    body,
    etag: etagOf(body),
    truncated: cut ? { rows: texts.length, maxBytes } : null,
  };
}

/** The sandbox's answerer. */
export function createSandboxedAnswerer(deps: SandboxedSqlDeps): SandboxedAnswerer {
  let running = 0;
  const byKey = new Map<number | null, number>();
  const busy = (message: string) => {
    deps.onOutcome('busy');
    return new HttpError('rate_limited', `${message}; retry shortly`, {
      'Retry-After': String(RETRY_AFTER_SECONDS),
    });
  };
  return (params, redactPii, caller) => {
    const sql = readParam(params, 'sql');
    if (sql === null || sql.trim() === '') return null;
    const parsed = parseLogsAllParams(params);
    if (!parsed.ok) return Promise.resolve({ ok: false, error: parsed.error });
    const mine = byKey.get(caller) ?? 0;
    if (mine >= deps.maxConcurrentPerKey) {
      throw busy(`${deps.maxConcurrentPerKey} logs.all sql queries of this API key are running`);
    }
    if (running >= deps.maxConcurrent) {
      throw busy(`${deps.maxConcurrent} logs.all sql queries are running in this process`);
    }
    const { project, startUs, endUs } = parsed.params;
    const reading = {
      ...deps.context(),
      capacity: deps.capacity,
      maxBytes: deps.maxBytes,
      answerMaxBytes: deps.answerMaxBytes,
      engine: deps.engine,
    };
    // Counted from here to the end of the work, which is a promise: nothing throws in between.
    running += 1;
    byKey.set(caller, mine + 1);
    const work = answerSandboxed({ project, sql, startUs, endUs }, reading);
    return work.then(
      (answer): Computed => {
        deps.onOutcome('answered');
        const rows = redactPii ? answer.rows.map((row) => redactAddresses(row)) : answer.rows;
        return computed(rows, answer.truncated, deps.answerMaxBytes);
      },
      (error: unknown) => {
        if (error instanceof SqlRefusal) {
          deps.onOutcome(error instanceof SqlTimeout ? 'timed_out' : 'refused');
          throw new HttpError('bad_request', error.message);
        }
        deps.onOutcome('failed');
        throw error;
      },
    ).finally(() => {
      running -= 1;
      const left = (byKey.get(caller) ?? 1) - 1;
      if (left === 0) byKey.delete(caller);
      else byKey.set(caller, left);
    });
  };
}
