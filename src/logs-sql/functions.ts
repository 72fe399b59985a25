/**
 * The functions a caller's query may call: every function and aggregate in the queries Studio
 * generates and in its Logs Explorer templates, and the common ones beside them, each with
 * BigQuery's meaning in SQLite's SQL. Any other name is refused (the reference system refuses
 * some by name; here only the listed ones run). None of them can make a value larger than its
 * input, so a query's memory stays bounded by the rows it reads.
 *
 * @module
 */
import { SqlRefusal, unsupported } from './sql-refusal.ts';
import { field, identText, isAbsent, list, type SyntaxNode, variantOf } from './syntax-tree.ts';
import { commonType, type Translated } from './translated.ts';

/** What a function's translation may use of the expression translator. */
export interface ArgumentTranslator {
  translate(node: SyntaxNode): Translated;
  timestamp(subject: Translated, safe: boolean, node: SyntaxNode): Translated;
  readonly scope: { readonly nowUs: number };
}

/** The arguments of one call. */
interface Call {
  readonly name: string;
  readonly node: SyntaxNode;
  /** Each argument's expression node; `'*'` for `count(*)`. */
  readonly args: readonly (SyntaxNode | '*')[];
  readonly distinct: boolean;
  readonly translator: ArgumentTranslator;
}

type FunctionTranslation = (call: Call) => Translated;

/** Microseconds in one of each unit `timestamp_trunc` and `INTERVAL` take. */
const UNIT_US: Readonly<Record<string, number>> = {
  microsecond: 1,
  millisecond: 1_000,
  second: 1_000_000,
  minute: 60_000_000,
  hour: 3_600_000_000,
  day: 86_400_000_000,
};

function arity(call: Call, min: number, max = min): void {
  if (call.args.length < min || call.args.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    throw new SqlRefusal(
      `${call.name.toUpperCase()} takes ${expected} argument${
        max === 1 ? '' : 's'
      }; it was given ${call.args.length}`,
    );
  }
}

function arg(call: Call, index: number): Translated {
  const node = call.args[index];
  if (node === '*' || node === undefined) throw unsupported(`${call.name}(*)`, call.node);
  return call.translator.translate(node);
}

/** Each argument's SQL, after checking their number. */
function args(call: Call, min: number, max = min): string[] {
  arity(call, min, max);
  return call.args.map((_, i) => arg(call, i).sql);
}

function plain(sqlName: string, type: Translated['type'], min: number, max = min) {
  return (call: Call): Translated => ({
    sql: `${sqlName}(${args(call, min, max).join(', ')})`,
    type,
  });
}

/** A function whose value is one of its arguments (`ifnull`, `coalesce`): of their common type. */
function sameType(sqlName: string, min: number, max = min): FunctionTranslation {
  return (call) => {
    arity(call, min, max);
    const values = call.args.map((_, i) => arg(call, i));
    return {
      sql: `${sqlName}(${values.map((value) => value.sql).join(', ')})`,
      type: commonType(values),
    };
  };
}

function aggregate(sqlName: string, type: Translated['type']): FunctionTranslation {
  return (call) => {
    arity(call, 1);
    const only = call.args[0];
    const inner = only === '*' ? '*' : arg(call, 0).sql;
    if (only === '*' && sqlName !== 'count') throw unsupported(`${call.name}(*)`, call.node);
    const argType = only === '*' ? 'number' : arg(call, 0).type;
    return {
      sql: `${sqlName}(${call.distinct ? 'DISTINCT ' : ''}${inner})`,
      type: type === 'unknown' ? argType : type,
    };
  };
}

/** A unit name (`minute`, `HOUR`) given as a bare word or a string. */
function unitOf(call: Call, node: SyntaxNode | '*' | undefined): number {
  let name: string | undefined;
  const { kind, value } = variantOf(node, 'unit');
  if (kind === 'Identifier') name = identText(value);
  else if (kind === 'Value') name = String(arg(call, 1).literal);
  const unit = name?.toLowerCase();
  const us = unit !== undefined && Object.hasOwn(UNIT_US, unit) ? UNIT_US[unit] : undefined;
  if (us === undefined) {
    throw unsupported(`the unit ${name === undefined ? kind : JSON.stringify(name)}`, node);
  }
  return us;
}

/** `INTERVAL n unit` in microseconds, as SQL. */
function intervalUs(call: Call, node: SyntaxNode | '*' | undefined): string {
  const { kind, value } = variantOf(node, 'interval');
  if (kind !== 'Interval') throw unsupported(`${call.name} without an INTERVAL`, node);
  const amount = call.translator.translate(field(value, 'value'));
  const leading = field(value, 'leading_field');
  if (typeof leading !== 'string' || !isAbsent(field(value, 'last_field'))) {
    throw unsupported('this INTERVAL', node);
  }
  const unit = leading.toLowerCase();
  const us = Object.hasOwn(UNIT_US, unit) ? UNIT_US[unit] : undefined;
  if (us === undefined) throw unsupported(`INTERVAL … ${leading}`, node);
  if (typeof amount.literal !== 'number' || !Number.isSafeInteger(amount.literal)) {
    throw unsupported('an INTERVAL of other than a whole number', node);
  }
  return `(${amount.literal} * ${us})`;
}

function timestampArg(call: Call, index: number): string {
  const node = call.args[index];
  return call.translator.timestamp(arg(call, index), false, node).sql;
}

const FUNCTIONS: Readonly<Record<string, FunctionTranslation>> = {
  count: aggregate('count', 'number'),
  sum: aggregate('sum', 'number'),
  avg: aggregate('avg', 'number'),
  min: aggregate('min', 'unknown'),
  max: aggregate('max', 'unknown'),
  countif: (call) => ({ sql: `count(CASE WHEN ${args(call, 1)[0]} THEN 1 END)`, type: 'number' }),
  regexp_contains: plain('lf_regexp_contains', 'bool', 2),
  starts_with: plain('lf_starts_with', 'bool', 2),
  ends_with: plain('lf_ends_with', 'bool', 2),
  ifnull: sameType('ifnull', 2),
  coalesce: sameType('coalesce', 1, 16),
  lower: plain('lf_lower', 'text', 1),
  upper: plain('lf_upper', 'text', 1),
  length: plain('length', 'number', 1),
  ltrim: plain('ltrim', 'text', 1, 2),
  rtrim: plain('rtrim', 'text', 1, 2),
  abs: plain('abs', 'number', 1),
  round: plain('round', 'number', 1, 2),
  // A function of SQLite is registered with a fixed number of arguments: concat is folded in twos.
  concat: (call) => ({
    sql: args(call, 1, 16).reduce((joined, next) => `lf_concat(${joined}, ${next})`),
    type: 'text',
  }),
  if: (call) => {
    arity(call, 3);
    const [when, then, otherwise] = [0, 1, 2].map((i) => arg(call, i));
    return {
      sql: `(CASE WHEN ${when?.sql} THEN ${then?.sql} ELSE ${otherwise?.sql} END)`,
      type: commonType([then as Translated, otherwise as Translated]),
    };
  },
  // Each argument's SQL appears once in what a function becomes: nesting never multiplies it.
  safe_divide: plain('lf_safe_divide', 'number', 2),
  json_value: (call) => {
    const [text, path = "'$'"] = args(call, 1, 2);
    return { sql: `lf_json_value(${text}, ${path})`, type: 'text' };
  },
  current_timestamp: (call) => {
    arity(call, 0);
    return { sql: String(call.translator.scope.nowUs), type: 'timestamp' };
  },
  timestamp_trunc: (call) => {
    arity(call, 2);
    const us = unitOf(call, call.args[1]);
    const ts = timestampArg(call, 0);
    return { sql: `((${ts} / ${us}) * ${us})`, type: 'timestamp' };
  },
  timestamp_sub: (call) => {
    arity(call, 2);
    return {
      sql: `(${timestampArg(call, 0)} - ${intervalUs(call, call.args[1])})`,
      type: 'timestamp',
    };
  },
  timestamp_add: (call) => {
    arity(call, 2);
    return {
      sql: `(${timestampArg(call, 0)} + ${intervalUs(call, call.args[1])})`,
      type: 'timestamp',
    };
  },
  unix_micros: (call) => {
    arity(call, 1);
    return { sql: timestampArg(call, 0), type: 'number' };
  },
  timestamp_micros: (call) => ({ sql: `lf_int64(${args(call, 1)[0]})`, type: 'timestamp' }),
};

/** The names a query may call, for the message of a refused one. */
export const ALLOWED_FUNCTIONS: readonly string[] = Object.keys(FUNCTIONS).sort();

/** Translates a call (`Function` node); refuses names outside {@link ALLOWED_FUNCTIONS}. */
export function translateFunction(node: SyntaxNode, translator: ArgumentTranslator): Translated {
  const nameParts = list(node, 'name');
  const name = nameParts.length === 1
    ? identText(variantOf(nameParts[0], 'function name').value).toLowerCase()
    : nameParts.map((part) => identText(variantOf(part, 'function name').value)).join('.');
  const translation = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
  if (translation === undefined) {
    throw new SqlRefusal(
      `the function ${name.slice(0, 64)} is not allowed in logs.all's sql; allowed: ${
        ALLOWED_FUNCTIONS.join(', ')
      }`,
    );
  }
  for (const extra of ['over', 'filter', 'null_treatment']) {
    if (!isAbsent(field(node, extra))) throw unsupported(`${name}(…) ${extra.toUpperCase()}`, node);
  }
  if (!isAbsent(field(node, 'within_group'))) throw unsupported('WITHIN GROUP', node);
  const argsNode = field(node, 'args');
  const { kind, value } = variantOf(argsNode, 'arguments');
  if (kind !== 'List' && kind !== 'None') throw unsupported(`${name} with a subquery`, node);
  if (!isAbsent(field(value, 'clauses'))) throw unsupported(`${name}(…) with clauses`, node);
  const treatment = field(value, 'duplicate_treatment');
  const calls = list(value, 'args').map((item): SyntaxNode | '*' => {
    const unnamed = variantOf(item, 'argument');
    if (unnamed.kind !== 'Unnamed') throw unsupported('a named argument', item);
    if (unnamed.value === 'Wildcard') return '*';
    const expression = variantOf(unnamed.value, 'argument');
    if (expression.kind !== 'Expr') throw unsupported(`${name}(${expression.kind})`, item);
    return expression.value;
  });
  if (treatment === 'Distinct' && !['count', 'sum', 'avg'].includes(name)) {
    throw unsupported(`${name}(DISTINCT …)`, node);
  }
  return translation({ name, node, args: calls, distinct: treatment === 'Distinct', translator });
}
