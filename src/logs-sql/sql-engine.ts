/**
 * What the sandboxed `logs.all` asks of its engine: a plan for a caller's text, then the answer
 * of that plan over the rows of its table. {@link ./engine-thread.ts} does both on a thread of its
 * own; tests call the pieces (`parseQuery`, `planQuery`, `runPlan`) directly.
 *
 * @module
 */
import type { EngineAnswer, TableRow } from './engine.ts';
import type { QueryPlan } from './translate.ts';

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
