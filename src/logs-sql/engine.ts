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

/** The rows a query answered, and whether more were cut at {@link MAX_RESULT_ROWS}. */
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
  db.exec(
    'PRAGMA case_sensitive_like = ON;' +
      'CREATE TABLE events (id TEXT, timestamp INTEGER, event_message, body BLOB)',
  );
  return db;
}

/** Loads the engine (once); later calls wait for the same load. */
export function loadEngine(): Promise<Database> {
  loading ??= open();
  return loading;
}

function resultValue(value: EngineValue, column: QueryPlan['columns'][number]): Json {
  if (value === null || value instanceof Uint8Array) return null;
  if (column.json && typeof value === 'string') return asRecords(JSON.parse(value) as Json);
  if (column.type === 'bool' && typeof value === 'number') return value !== 0;
  return value;
}

/**
 * Runs `plan` over `rows`.
 *
 * @throws {SqlRefusal} when SQLite refuses the query or a function fails on a value (a strict
 * cast of a bad value, a pattern that is not RE2): the caller's query, not the service, is at fault.
 */
export async function runPlan(plan: QueryPlan, rows: readonly TableRow[]): Promise<EngineAnswer> {
  const db = await loadEngine();
  // From here to the end nothing awaits: one query has the database to itself.
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
    const statement = prepare(db, plan.sql);
    const answered: Record<string, Json>[] = [];
    try {
      while (statement.step()) {
        const values = statement.get();
        const row: Record<string, Json> = {};
        plan.columns.forEach((column, i) => {
          row[column.name] = resultValue(values[i] ?? null, column);
        });
        answered.push(row);
      }
    } catch (error) {
      throw refusal(error);
    } finally {
      statement.free();
    }
    const truncated = answered.length > MAX_RESULT_ROWS;
    return { rows: truncated ? answered.slice(0, MAX_RESULT_ROWS) : answered, truncated };
  } finally {
    db.exec('ROLLBACK');
  }
}

function prepare(db: Database, sql: string): ReturnType<Database['prepare']> {
  try {
    return db.prepare(sql);
  } catch (error) {
    throw refusal(error);
  }
}

function refusal(error: unknown): SqlRefusal {
  const message = error instanceof Error ? error.message : String(error);
  return new SqlRefusal(`the query cannot run: ${message.slice(0, 300)}`);
}
