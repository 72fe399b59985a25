/**
 * Parses a caller's `sql` with sqlparser-rs's BigQuery dialect, the parser the reference system
 * runs (compiled to WebAssembly, the same module on Node and Deno), and keeps it only if it is one
 * query. The module is loaded on first use (about 60 ms and 15 MiB, once per process).
 *
 * @module
 */
import { init, parse } from '@guanmingchiu/sqlparser-ts';
import { SqlRefusal, unsupported } from './sql-refusal.ts';
import { type SyntaxNode, variantOf } from './syntax-tree.ts';

/** Longest `sql` taken, in characters: Studio's longest generated query is under 2,000. */
export const MAX_SQL_LENGTH = 16_384;

/** The parser failed inside itself on a text: its module may be unfit for the next one. */
export class ParserFailure extends SqlRefusal {
  constructor(message: string) {
    super(message);
    this.name = 'ParserFailure';
  }
}

let loading: Promise<void> | null = null;

/** Loads the parser (once); later calls wait for the same load. */
export function loadParser(): Promise<void> {
  loading ??= init();
  return loading;
}

/**
 * The one `SELECT` query of `sql`, as sqlparser-rs's tree.
 *
 * @throws {SqlRefusal} when the text does not parse, holds more or less than one statement, or
 * its statement is not a query.
 *
 * @example
 * ```ts
 * await parseQuery('select count(*) as count from edge_logs'); // { body: { Select: … }, … }
 * ```
 */
export async function parseQuery(sql: string): Promise<SyntaxNode> {
  if (sql.length > MAX_SQL_LENGTH) {
    throw new SqlRefusal(`sql is ${sql.length} characters; at most ${MAX_SQL_LENGTH} are taken`);
  }
  await loadParser();
  let statements: SyntaxNode[];
  try {
    statements = parse(sql, 'bigquery') as SyntaxNode[];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The package names a trap inside its WebAssembly a ParserError too; only the parser's own
    // refusals say `sql parser error`.
    if (message.startsWith('sql parser error')) {
      throw new SqlRefusal(
        `sql does not parse as BigQuery SQL: ${message.replace(/^sql parser error: /, '')}`,
      );
    }
    // A trap inside the WebAssembly module (an expression nested beyond its stack): the module
    // may be left unfit for another text, so its thread is ended.
    throw new ParserFailure(
      `sql could not be parsed: the parser failed on it (${message.slice(0, 120)}); ` +
        'nest its expressions less deeply',
    );
  }
  if (statements.length !== 1) {
    throw new SqlRefusal(`sql must be one SELECT statement; it holds ${statements.length}`);
  }
  const statement = variantOf(statements[0], 'statement');
  if (statement.kind !== 'Query') {
    throw unsupported(`a ${statement.kind} statement`, statement.value);
  }
  return statement.value;
}
