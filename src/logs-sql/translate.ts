/**
 * A caller's query, parsed, made into a plan for SQLite: the sandbox table it reads, SQLite's
 * SQL over that table's rows, and each result column's name and type. The subset is what Studio
 * sends, and what keeps a query's cost bounded by the rows it reads: one sandbox table, joined
 * only with `unnest(...)` of its own events' fields (which, as in the reference system's Postgres
 * translation, name fields and never multiply rows), no subqueries, no `WITH`, no set operations.
 *
 * @module
 */
import { ExpressionTranslator, namePath, type Scope } from './expressions.ts';
import { isSandboxTable, SANDBOX_TABLES } from './sandbox-tables.ts';
import { SqlRefusal, unsupported } from './sql-refusal.ts';
import { field, identText, isAbsent, list, type SyntaxNode, variantOf } from './syntax-tree.ts';
import type { ValueType } from './translated.ts';

/** Most rows one answer carries (the reference system's `max_limit` of `logs.all`). */
export const MAX_RESULT_ROWS = 1000;

/**
 * Longest SQL a plan may be, in characters. Every construct writes each of its parts once, so
 * the SQL grows with the caller's text; this holds even if one did not.
 */
export const MAX_PLAN_SQL_LENGTH = 262_144;

/** One result column. */
export interface ResultColumn {
  readonly name: string;
  readonly type: ValueType;
  /** Whether SQLite gives its value as JSON text (an event's field) to be parsed. */
  readonly json: boolean;
}

/** What SQLite runs for one query. */
export interface QueryPlan {
  /** The sandbox table read (a key of {@link SANDBOX_TABLES}). */
  readonly table: string;
  /** SQL over the table `events (id, timestamp, event_message, body)`. */
  readonly sql: string;
  readonly columns: readonly ResultColumn[];
}

/** The keys a `Select` may carry with content; any other key holding something is refused. */
const SELECT_KEYS = new Set([
  'select_token',
  'distinct',
  'projection',
  'from',
  'selection',
  'group_by',
  'having',
  'flavor',
  'top_before_distinct',
  'window_before_qualify',
]);

/** The keys a `Query` may carry with content. */
const QUERY_KEYS = new Set(['body', 'order_by', 'limit_clause']);

function onlyKnownKeys(node: SyntaxNode, known: ReadonlySet<string>, what: string): void {
  if (node === null || typeof node !== 'object') throw unsupported(`this ${what}`, node);
  for (const [key, value] of Object.entries(node)) {
    if (!known.has(key) && !isAbsent(value)) {
      throw unsupported(
        key === 'with' ? 'WITH' : `${key.replaceAll('_', ' ').toUpperCase()}`,
        value,
      );
    }
  }
}

function tableOf(relation: SyntaxNode): { table: string; names: Set<string> } {
  const { kind, value } = variantOf(relation, 'FROM');
  if (kind !== 'Table') {
    throw unsupported(kind === 'Derived' ? 'a subquery in FROM' : `${kind} in FROM`, relation);
  }
  const parts = list(value, 'name');
  const name = parts.map((part) => identText(variantOf(part, 'table name').value)).join('.');
  if (parts.length !== 1 || !isSandboxTable(name)) {
    throw new SqlRefusal(
      `Table not found in CTE: (${name.slice(0, 128)}); logs.all's sql reads ${
        Object.keys(SANDBOX_TABLES).join(', ')
      }`,
    );
  }
  if (!isAbsent(field(value, 'args'))) throw unsupported(`${name}(…) as a function`, value);
  const names = new Set([name]);
  const alias = field(value, 'alias');
  if (!isAbsent(alias)) names.add(identText(field(alias, 'name')));
  return { table: name, names };
}

/** Whether a join is one that adds an unnest alias: `cross join`, or `left join … on true`. */
function isUnnestJoin(operator: SyntaxNode): boolean {
  const { kind, value } = variantOf(operator, 'join');
  if (kind === 'CrossJoin') return true;
  if (kind !== 'Left' && kind !== 'LeftOuter') return false;
  const on = variantOf(value, 'join condition');
  const constant = field(field(variantOf(on.value, 'condition').value, 'value'), 'Boolean');
  return on.kind === 'On' && constant === true;
}

/** Adds the alias of one `unnest(<field>) as alias` to `unnests`. */
function addUnnest(relation: SyntaxNode, scope: Scope, unnests: Map<string, readonly string[]>) {
  const { kind, value } = variantOf(relation, 'join');
  if (kind !== 'UNNEST') {
    throw unsupported(kind === 'Table' ? 'a join of two tables' : `a join of ${kind}`, relation);
  }
  const arrays = list(value, 'array_exprs');
  const alias = field(value, 'alias');
  if (arrays.length !== 1 || isAbsent(alias) || field(value, 'with_offset') === true) {
    throw unsupported('this UNNEST (one field and an alias are needed)', relation);
  }
  const target = variantOf(arrays[0], 'UNNEST');
  const parts = target.kind === 'Identifier'
    ? [identText(target.value)]
    : target.kind === 'CompoundIdentifier' && Array.isArray(target.value)
    ? target.value.map(identText)
    : null;
  const path = parts === null ? null : namePath(parts, { ...scope, unnests });
  if (path === null) throw unsupported('UNNEST of anything but a field of the events', relation);
  unnests.set(identText(field(alias, 'name')), path);
}

function scopeOf(from: readonly SyntaxNode[], nowUs: number): { table: string; scope: Scope } {
  if (from.length === 0) throw new SqlRefusal('sql must read one of the tables (FROM edge_logs …)');
  const first = tableOf(field(from[0], 'relation'));
  const unnests = new Map<string, readonly string[]>();
  const scope: Scope = { tableNames: first.names, unnests, nowUs };
  const joins = [...list(from[0], 'joins')];
  for (const more of from.slice(1)) {
    // `from t, unnest(...) as m`: a comma join is a cross join.
    joins.push({ relation: field(more, 'relation'), join_operator: 'CrossJoin' });
    joins.push(...list(more, 'joins'));
  }
  for (const join of joins) {
    if (!isUnnestJoin(field(join, 'join_operator'))) {
      throw unsupported('this join (only CROSS JOIN or LEFT JOIN … ON true of UNNEST)', join);
    }
    addUnnest(field(join, 'relation'), scope, unnests);
  }
  return { table: first.table, scope };
}

/** A plain number literal's value, or null. */
function integerLiteral(node: SyntaxNode): number | null {
  const value = field(field(variantOf(node, 'expression').value, 'value'), 'Number');
  const text = Array.isArray(value) ? value[0] : undefined;
  // A LIMIT or OFFSET past what a table holds means all of it.
  return typeof text === 'string' && /^\d{1,15}$/.test(text) ? Number(text) : null;
}

/** A GROUP BY or ORDER BY item: an ordinal, a result alias (as its ordinal), or an expression. */
function groupingItem(
  node: SyntaxNode,
  aliases: ReadonlyMap<string, number>,
  count: number,
  expressions: ExpressionTranslator,
): string {
  const ordinal = integerLiteral(node);
  if (ordinal !== null) {
    if (ordinal < 1 || ordinal > count) {
      throw new SqlRefusal(`the ordinal ${ordinal} is out of range: the SELECT list has ${count}`);
    }
    return String(ordinal);
  }
  const { kind, value } = variantOf(node, 'expression');
  if (kind === 'Identifier') {
    const index = aliases.get(identText(value));
    if (index !== undefined) return String(index + 1);
  }
  return expressions.translate(node).sql;
}

/**
 * The plan of `query` (sqlparser-rs's tree of one query); `nowUs` is `current_timestamp()`.
 *
 * @throws {SqlRefusal} naming the first construct outside the subset.
 */
export function planQuery(query: SyntaxNode, nowUs: number): QueryPlan {
  onlyKnownKeys(query, QUERY_KEYS, 'query');
  const body = variantOf(field(query, 'body'), 'query');
  if (body.kind !== 'Select') {
    throw unsupported(body.kind === 'SetOperation' ? 'UNION, INTERSECT or EXCEPT' : body.kind);
  }
  const select = body.value;
  onlyKnownKeys(select, SELECT_KEYS, 'SELECT');
  const distinct = field(select, 'distinct');
  if (!isAbsent(distinct) && distinct !== 'Distinct' && distinct !== 'All') {
    throw unsupported('DISTINCT ON', distinct);
  }
  const { table, scope } = scopeOf(list(select, 'from'), nowUs);
  const expressions = new ExpressionTranslator(scope);
  const columns: ResultColumn[] = [];
  const selected: string[] = [];
  const types: string[] = [];
  const aliases = new Map<string, number>();
  let anonymous = 0;
  for (const item of list(select, 'projection')) {
    const { kind, value } = variantOf(item, 'SELECT item');
    if (kind === 'Wildcard' || kind === 'QualifiedWildcard') {
      throw new SqlRefusal('restricted wildcard (*) in a result column: name the columns');
    }
    if (kind !== 'UnnamedExpr' && kind !== 'ExprWithAlias') throw unsupported(kind, item);
    const node = kind === 'UnnamedExpr' ? value : field(value, 'expr');
    const translated = expressions.translate(node);
    let name: string;
    if (kind === 'ExprWithAlias') {
      name = identText(field(value, 'alias'));
      aliases.set(name, columns.length);
    } else {
      const named = variantOf(node, 'expression');
      name = named.kind === 'Identifier'
        ? identText(named.value)
        : named.kind === 'CompoundIdentifier' && Array.isArray(named.value)
        ? identText(named.value.at(-1))
        : `f${anonymous++}_`;
    }
    if (columns.some((column) => column.name === name)) {
      throw new SqlRefusal(`Duplicate column name ${name} in the SELECT list`);
    }
    selected.push(`${translated.sql} AS c${columns.length}`);
    types.push(translated.jsonType ?? 'NULL');
    columns.push({ name, type: translated.type, json: translated.jsonType !== undefined });
  }
  const selectList = [...selected, ...types.map((type, i) => `${type} AS t${i}`)].join(', ');
  let sql = `SELECT ${distinct === 'Distinct' ? 'DISTINCT ' : ''}${selectList} FROM events`;
  const where = field(select, 'selection');
  if (!isAbsent(where)) sql += ` WHERE ${expressions.translate(where).sql}`;
  const groups = groupBy(field(select, 'group_by'));
  if (groups.length > 0) {
    const items = groups.map((node) => groupingItem(node, aliases, columns.length, expressions));
    sql += ` GROUP BY ${items.join(', ')}`;
  }
  // HAVING and ORDER BY may name the SELECT list's aliases, as BigQuery allows.
  const afterSelect = new ExpressionTranslator({
    ...scope,
    aliases: new Map(
      [...aliases].map((
        [alias, i],
      ) => [alias, { sql: `c${i}`, type: columns[i]?.type ?? 'unknown' }]),
    ),
  });
  const having = field(select, 'having');
  if (!isAbsent(having)) sql += ` HAVING ${afterSelect.translate(having).sql}`;
  const order = orderBy(field(query, 'order_by'));
  if (order.length > 0) {
    sql += ` ORDER BY ${
      order.map(({ expr, descending, nulls }) =>
        `${groupingItem(expr, aliases, columns.length, afterSelect)}${
          descending ? ' DESC' : ''
        }${nulls}`
      ).join(', ')
    }`;
  }
  const { limit, offset } = limitOf(field(query, 'limit_clause'));
  // One more row than an answer carries, so that the engine can tell a cut.
  const rowLimit = Math.min(limit ?? Number.POSITIVE_INFINITY, MAX_RESULT_ROWS + 1);
  sql += ` LIMIT ${rowLimit}${offset === 0 ? '' : ` OFFSET ${offset}`}`;
  if (sql.length > MAX_PLAN_SQL_LENGTH) {
    throw new SqlRefusal(
      `sql translates to ${sql.length} characters; at most ${MAX_PLAN_SQL_LENGTH}`,
    );
  }
  return { table, sql, columns };
}

function groupBy(node: SyntaxNode): readonly SyntaxNode[] {
  if (isAbsent(node)) return [];
  const { kind, value } = variantOf(node, 'GROUP BY');
  if (kind !== 'Expressions' || !Array.isArray(value)) throw unsupported(`GROUP BY ${kind}`, node);
  const [items, modifiers] = value as [SyntaxNode, SyntaxNode];
  if (!isAbsent(modifiers)) throw unsupported('GROUP BY with ROLLUP, CUBE or GROUPING SETS', node);
  return Array.isArray(items) ? items : [];
}

function orderBy(node: SyntaxNode): { expr: SyntaxNode; descending: boolean; nulls: string }[] {
  if (isAbsent(node)) return [];
  if (!isAbsent(field(node, 'interpolate'))) throw unsupported('INTERPOLATE', node);
  const { kind, value } = variantOf(field(node, 'kind'), 'ORDER BY');
  if (kind !== 'Expressions' || !Array.isArray(value)) throw unsupported(`ORDER BY ${kind}`, node);
  return value.map((item) => {
    if (!isAbsent(field(item, 'with_fill'))) throw unsupported('WITH FILL', item);
    const options = field(item, 'options');
    const nullsFirst = field(options, 'nulls_first');
    return {
      expr: field(item, 'expr'),
      descending: field(options, 'asc') === false,
      nulls: nullsFirst === true ? ' NULLS FIRST' : nullsFirst === false ? ' NULLS LAST' : '',
    };
  });
}

function limitOf(node: SyntaxNode): { limit: number | null; offset: number } {
  if (isAbsent(node)) return { limit: null, offset: 0 };
  const { kind, value } = variantOf(node, 'LIMIT');
  if (kind !== 'LimitOffset' || !isAbsent(field(value, 'limit_by'))) {
    throw unsupported(`this LIMIT`, node);
  }
  const limitNode = field(value, 'limit');
  const limit = isAbsent(limitNode) ? null : integerLiteral(limitNode);
  if (!isAbsent(limitNode) && limit === null) {
    throw unsupported('a LIMIT other than a number', node);
  }
  const offsetNode = field(field(value, 'offset'), 'value');
  const offset = isAbsent(offsetNode) ? 0 : integerLiteral(offsetNode);
  if (offset === null) throw unsupported('an OFFSET other than a number', node);
  return { limit, offset };
}
