/**
 * The embedded SQL engine of the sandboxed `logs.all`: SQLite compiled to WebAssembly (sql.js,
 * the same module on Node and Deno), loaded on first use (about 15 ms and 2 MiB). A query's rows
 * are loaded into one in-memory table, `events (id, timestamp, event_message, body)` (the event
 * in SQLite's binary JSON), the plan's
 * SQL runs over it, and the table is emptied: nothing of one query is left for the next. It runs
 * synchronously, so queries never interleave in the one database; its memory grows to the
 * largest query's rows and is reused after.
 *
 * @module
 */
import initSqlJs, { type Database, type SqlValue as EngineValue } from 'sql.js';
import { asRecords } from '../events/warehouse-form.ts';
import type { Json } from '../events/types.ts';
import { engineFunctions } from './engine-functions.ts';
import { SqlRefusal } from './sql-refusal.ts';
import { MAX_RESULT_ROWS, type QueryPlan } from './translate.ts';

/** One event of a sandbox table. */
export interface TableRow {
  readonly id: string;
  readonly timestampUs: number;
  /** The event as normalized at ingest: JSON text, as UTF-8 bytes (taken by SQLite as they are). */
  readonly json: Uint8Array;
}

/**
 * The rows a query answered, and whether more were cut (at {@link MAX_RESULT_ROWS}, or at the
 * byte bound it was run with).
 */
export interface EngineAnswer {
  readonly rows: Record<string, Json>[];
  readonly truncated: boolean;
}

let loading: Promise<Database> | null = null;

async function open(): Promise<Database> {
  const SQL = await initSqlJs();
  const db = new SQL.Database();
  for (const [name, fn] of Object.entries(engineFunctions())) {
    db.create_function(name, fn as (...args: EngineValue[]) => EngineValue);
  }
  // Sorting and grouping in SQLite's own heap (bounded by its hard heap limit), not in temporary
  // files of the WebAssembly module's file system, which nothing bounds.
  db.exec(
    'PRAGMA case_sensitive_like = ON; PRAGMA temp_store = MEMORY;' +
      'CREATE TABLE events (id TEXT, timestamp INTEGER, event_message, body BLOB)',
  );
  return db;
}

/** Loads the engine (once); later calls wait for the same load. */
export function loadEngine(): Promise<Database> {
  loading ??= open();
  return loading;
}

/** SQLite ran out of the memory it may use: its module is kept from other queries after. */
export class EngineOutOfMemory extends SqlRefusal {
  constructor(heapBytes: number | undefined) {
    super(
      `the query needs more memory than the engine has${
        heapBytes === undefined ? '' : ` (${Math.round(heapBytes / 1_048_576)} MiB)`
      }: narrow iso_timestamp_start and iso_timestamp_end, or select less`,
    );
    this.name = 'EngineOutOfMemory';
  }
}

/**
 * SQLite's WebAssembly trapped on a query (a stack or memory fault): its module is kept from
 * other queries after, as after running out of memory.
 */
export class EngineTrap extends SqlRefusal {
  constructor(message: string) {
    super(`the query cannot run: the engine failed on it (${message.slice(0, 120)})`);
    this.name = 'EngineTrap';
  }
}

/** How a plan runs. */
export interface RunOptions {
  /** Stop once the rows hold about this many bytes of values (the answer's own bound). */
  readonly maxBytes?: number;
  /** SQLite's hard heap limit, in bytes (`PRAGMA hard_heap_limit`; process-wide). */
  readonly heapBytes?: number;
}

/** A column's value as the answer carries it. */
function resultValue(
  value: EngineValue,
  jsonType: EngineValue,
  column: QueryPlan['columns'][number],
): Json {
  if (value === null || value instanceof Uint8Array) return null;
  if (column.json) {
    if (jsonType === 'object' || jsonType === 'array') {
      return asRecords(JSON.parse(String(value)) as Json);
    }
    if (jsonType === 'true' || jsonType === 'false') return jsonType === 'true';
    return value;
  }
  if (column.type === 'bool' && typeof value === 'number') return value !== 0;
  return value;
}

/** About how many bytes `value` takes in the answer's JSON. */
function sizeOf(value: Json): number {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? value.length + 2 : 8;
  }
  return JSON.stringify(value).length;
}

/**
 * Runs `plan` over `rows`.
 *
 * @throws {SqlRefusal} when SQLite refuses the query or a function fails on a value (a strict
 * cast of a bad value, a pattern that is not RE2): the caller's query, not the service, is at
 * fault; {@link EngineOutOfMemory} when it needs more than `heapBytes`.
 */
export async function runPlan(
  plan: QueryPlan,
  rows: readonly TableRow[],
  options: RunOptions = {},
): Promise<EngineAnswer> {
  const db = await loadEngine();
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  // From here to the end nothing awaits: one query has the database to itself.
  if (options.heapBytes !== undefined) {
    db.exec(`PRAGMA hard_heap_limit = ${Math.floor(options.heapBytes)}`);
  }
  try {
    db.exec('BEGIN');
    // Each event parsed once, into SQLite's binary JSON: fields are then read without parsing
    // again. A text that is not JSON (never written so) gives a row of NULLs, not an error.
    const insert = db.prepare(
      "INSERT INTO events SELECT ?1, ?2, body ->> '$.event_message', body FROM (SELECT CASE " +
        'WHEN json_valid(CAST(?3 AS TEXT)) THEN jsonb(CAST(?3 AS TEXT)) END AS body)',
    );
    try {
      for (const row of rows) insert.run([row.id, row.timestampUs, row.json]);
    } finally {
      insert.free();
    }
    const statement = prepare(db, plan.sql, options.heapBytes);
    const answered: Record<string, Json>[] = [];
    let bytes = 0;
    let cut = false;
    try {
      const width = plan.columns.length;
      while (statement.step()) {
        const values = statement.get();
        // Own properties whatever the alias (`__proto__` is a column like any other).
        const row = Object.fromEntries(plan.columns.map((column, i) => {
          const value = resultValue(values[i] ?? null, values[width + i] ?? null, column);
          bytes += column.name.length + sizeOf(value);
          return [column.name, value];
        }));
        answered.push(row);
        if (answered.length > MAX_RESULT_ROWS || bytes > maxBytes) {
          cut = true;
          break;
        }
      }
    } catch (error) {
      throw refusal(error, options.heapBytes);
    } finally {
      statement.free();
    }
    return { rows: cut ? answered.slice(0, -1) : answered, truncated: cut };
  } catch (error) {
    throw refusal(error, options.heapBytes);
  } finally {
    try {
      db.exec('ROLLBACK');
    } catch {
      // None is open: SQLite rolls back by itself a transaction that ran out of memory.
    }
  }
}

function prepare(
  db: Database,
  sql: string,
  heapBytes: number | undefined,
): ReturnType<Database['prepare']> {
  try {
    return db.prepare(sql);
  } catch (error) {
    throw refusal(error, heapBytes);
  }
}

function refusal(error: unknown, heapBytes: number | undefined): SqlRefusal {
  if (error instanceof SqlRefusal) return error;
  const message = error instanceof Error ? error.message : String(error);
  // SQLite's own words, whole: a function's error that merely mentions them is not one.
  if (message === 'out of memory') return new EngineOutOfMemory(heapBytes);
  if (error instanceof RangeError || error instanceof WebAssembly.RuntimeError) {
    return new EngineTrap(message);
  }
  return new SqlRefusal(`the query cannot run: ${message.slice(0, 300)}`);
}
