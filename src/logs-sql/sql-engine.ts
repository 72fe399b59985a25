/**
 * What the sandboxed `logs.all` asks of its engine: a plan for a caller's text, then the answer
 * of that plan over the rows of its table. {@link ./engine-thread.ts} does both on a thread of its
 * own (the service); {@link localEngine} does them in the caller's thread (tests, benchmarks).
 *
 * @module
 */
import { type EngineAnswer, runPlan, type TableRow } from './engine.ts';
import { parseQuery } from './parse-sql.ts';
import { planQuery, type QueryPlan } from './translate.ts';

/** Plans and runs a caller's queries. */
export interface SqlEngine {
  /**
   * The plan of `sql`; `nowUs` is its `current_timestamp()`.
   *
   * @throws {SqlRefusal} naming what is not supported.
   */
  plan(sql: string, nowUs: number): Promise<QueryPlan>;
  /**
   * The rows of `plan` over `rows`, stopping once they hold about `maxBytes` of values.
   *
   * @throws {SqlRefusal} when SQLite refuses the query or a value.
   */
  run(plan: QueryPlan, rows: readonly TableRow[], maxBytes: number): Promise<EngineAnswer>;
}

/** The engine in the caller's own thread, without a time limit. */
export const localEngine: SqlEngine = {
  plan: async (sql, nowUs) => planQuery(await parseQuery(sql), nowUs),
  run: (plan, rows, maxBytes) => runPlan(plan, rows, { maxBytes }),
};
