/**
 * Expressions of a caller's query, from sqlparser-rs's tree to SQLite's SQL, by allow-list: each
 * kind of node this file knows is translated with BigQuery's meaning, every other kind is refused
 * with its name and place. Names resolve as the reference system's Postgres translation resolves
 * them: a table's four columns, and the fields of its events through the aliases of
 * `unnest(...)` joins (`cross join unnest(m.request) as request` makes `request.method` the event's
 * `metadata.request.method`).
 *
 * @module
 */
import { parseParameterTimestamp } from '../time/timestamp.ts';
import { translateFunction } from './functions.ts';
import { isSandboxColumn } from './sandbox-tables.ts';
import { placeOf, SqlRefusal, unsupported } from './sql-refusal.ts';
import { field, identText, isAbsent, list, type SyntaxNode, variantOf } from './syntax-tree.ts';
import { commonType, sqlString, type Translated } from './translated.ts';

/** What names mean in one query. */
export interface Scope {
  /** The table's name and its alias. */
  readonly tableNames: ReadonlySet<string>;
  /** Each `unnest` alias with the path of event fields it stands for. */
  readonly unnests: ReadonlyMap<string, readonly string[]>;
  /** Now, in Unix microseconds (`current_timestamp()`). */
  readonly nowUs: number;
  /**
   * The SELECT list's aliases, where a name may stand for one (HAVING, ORDER BY): each alias with
   * its column's name in the plan's SQL and its type.
   */
  readonly aliases?: ReadonlyMap<string, Translated>;
}

const COMPARISONS: Readonly<Record<string, string>> = {
  Eq: '=',
  NotEq: '!=',
  Gt: '>',
  Lt: '<',
  GtEq: '>=',
  LtEq: '<=',
};

const ARITHMETIC: Readonly<Record<string, string>> = {
  Plus: '+',
  Minus: '-',
  Multiply: '*',
};

/** Whether a field name can go in a JSON path: no quote, backslash or control character. */
function isFieldName(name: string): boolean {
  if (name.length === 0 || name.length > 128) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

/** The event fields of `path` (`['metadata', 'request', 'method']`). */
export function fieldPath(path: readonly string[], node: SyntaxNode): Translated {
  for (const name of path) {
    if (!isFieldName(name)) throw unsupported(`the field name ${JSON.stringify(name)}`, node);
  }
  const jsonPath = sqlString(`$.${path.map((name) => `"${name}"`).join('.')}`);
  // The type column says only what the value alone cannot (an object or array is its JSON text,
  // a boolean 1 or 0), so that JSON null and a missing field are one NULL to DISTINCT as well.
  return {
    sql: `(body ->> ${jsonPath})`,
    jsonType: `(CASE json_type(body, ${jsonPath}) WHEN 'object' THEN 'object' WHEN 'array' ` +
      `THEN 'array' WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' END)`,
    type: 'field',
  };
}

function column(name: 'id' | 'timestamp' | 'event_message'): Translated {
  return { sql: name, type: name === 'timestamp' ? 'timestamp' : 'text' };
}

/**
 * The event fields a qualified name reaches through an `unnest` alias or a table's `metadata`
 * (`['metadata', 'request', 'method']`), or null when it names a column or nothing.
 */
export function namePath(parts: readonly string[], scope: Scope): readonly string[] | null {
  const [first, ...rest] = parts as [string, ...string[]];
  const unnest = scope.unnests.get(first);
  if (unnest !== undefined) return [...unnest, ...rest];
  if (scope.tableNames.has(first) && rest.length > 0) {
    return namePath(rest, { ...scope, tableNames: new Set(), unnests: new Map() });
  }
  if (first === 'metadata') return parts;
  return null;
}

/** What a (possibly qualified) name stands for; refused, as BigQuery words it, when nothing. */
export function resolveName(parts: readonly string[], scope: Scope, node: SyntaxNode): Translated {
  const path = namePath(parts, scope);
  if (path !== null) return fieldPath(path, node);
  const name = scope.tableNames.has(parts[0] as string) ? parts.slice(1) : parts;
  const only = name.length === 1 ? name[0] as string : '';
  if (isSandboxColumn(only) && only !== 'metadata') return column(only);
  const alias = parts.length === 1 ? scope.aliases?.get(parts[0] as string) : undefined;
  if (alias !== undefined) return alias;
  throw new SqlRefusal(`Unrecognized name: ${parts.join('.')}`);
}

function literal(node: SyntaxNode): Translated {
  const value = variantOf(field(node, 'value') ?? node, 'literal');
  switch (value.kind) {
    case 'Number': {
      const text = Array.isArray(value.value) ? value.value[0] : undefined;
      if (typeof text !== 'string' || !/^(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
        throw unsupported('this number', node);
      }
      const number = Number(text);
      if (!Number.isFinite(number)) throw unsupported(`the number ${text.slice(0, 40)}`, node);
      return { sql: text, type: 'number', literal: number };
    }
    case 'SingleQuotedString':
    case 'DoubleQuotedString':
    case 'SingleQuotedRawStringLiteral':
    case 'DoubleQuotedRawStringLiteral':
    case 'TripleSingleQuotedString':
    case 'TripleDoubleQuotedString':
    case 'TripleSingleQuotedRawStringLiteral':
    case 'TripleDoubleQuotedRawStringLiteral': {
      const text = value.value;
      if (typeof text !== 'string') throw unsupported('this string', node);
      if (text.includes('\u0000')) throw unsupported('a string holding NUL', node);
      return { sql: sqlString(text), type: 'text', literal: text };
    }
    case 'Boolean':
      return { sql: value.value === true ? '1' : '0', type: 'bool', literal: value.value === true };
    case 'Null':
      return { sql: 'NULL', type: 'unknown', literal: null };
    default:
      throw unsupported(`a ${value.kind} literal`, node);
  }
}

/**
 * `a` and `b` made comparable as BigQuery compares them: a text beside a timestamp is read as a
 * timestamp (a literal at once, an expression when run, strictly), an event's field beside a
 * number is read as a number, and beside a text literal as text (a field holding 200 equals '200').
 */
export function comparable(a: Translated, b: Translated, node: SyntaxNode): [string, string] {
  return [operand(a, b, node), operand(b, a, node)];
}

function operand(self: Translated, other: Translated, node: SyntaxNode): string {
  if (other.type === 'timestamp' && typeof self.literal === 'string') {
    const us = parseParameterTimestamp(self.literal);
    if (us === null) {
      throw new SqlRefusal(
        `could not cast literal ${JSON.stringify(self.literal)} to TIMESTAMP` +
          (placeOf(node) === '' ? '' : ` (${placeOf(node)})`),
      );
    }
    return String(us);
  }
  if (other.type === 'timestamp' && self.type === 'text') return `lf_timestamp(${self.sql})`;
  if (self.type === 'field' && (other.type === 'number' || other.type === 'timestamp')) {
    return `lf_number(${self.sql})`;
  }
  if (self.type === 'field' && typeof other.literal === 'string') {
    return `CAST(${self.sql} AS TEXT)`;
  }
  return self.sql;
}

/** Translates expressions of one query. */
export class ExpressionTranslator {
  readonly scope: Scope;

  constructor(scope: Scope) {
    this.scope = scope;
  }

  /** The SQLite form of `node`. */
  translate(node: SyntaxNode): Translated {
    const { kind, value } = variantOf(node, 'expression');
    switch (kind) {
      case 'Identifier':
        return resolveName([identText(value)], this.scope, value);
      case 'CompoundIdentifier':
        if (!Array.isArray(value) || value.length === 0) throw unsupported('this name', node);
        return resolveName(value.map(identText), this.scope, value);
      case 'Value':
        return literal(value);
      case 'Nested': {
        const inner = this.translate(value);
        return { ...inner, sql: `(${inner.sql})`, jsonType: undefined };
      }
      case 'BinaryOp':
        return this.#binary(value);
      case 'UnaryOp':
        return this.#unary(value);
      case 'IsNull':
      case 'IsNotNull':
        return {
          sql: `(${this.translate(value).sql} IS ${kind === 'IsNull' ? '' : 'NOT '}NULL)`,
          type: 'bool',
        };
      case 'IsTrue':
      case 'IsFalse':
      case 'IsNotTrue':
      case 'IsNotFalse':
        return this.#isTruth(kind, value);
      case 'InList':
        return this.#inList(value);
      case 'Between':
        return this.#between(value);
      case 'Like':
      case 'ILike':
        return this.#like(kind === 'ILike', value);
      case 'Case':
        return this.#case(value);
      case 'Cast':
        return this.#cast(value);
      case 'Function':
        return translateFunction(value, this);
      case 'Trim':
        return this.#trim(value);
      default:
        throw unsupported(kind === 'Subquery' || kind === 'InSubquery' ? 'a subquery' : kind, node);
    }
  }

  #binary(node: SyntaxNode): Translated {
    const op = field(node, 'op');
    const left = this.translate(field(node, 'left'));
    const right = this.translate(field(node, 'right'));
    if (op === 'And' || op === 'Or') {
      return { sql: `(${left.sql} ${op.toUpperCase()} ${right.sql})`, type: 'bool' };
    }
    if (typeof op === 'string' && Object.hasOwn(COMPARISONS, op)) {
      const [a, b] = comparable(left, right, node);
      return { sql: `(${a} ${COMPARISONS[op]} ${b})`, type: 'bool' };
    }
    if (op === 'StringConcat') return { sql: `lf_concat(${left.sql}, ${right.sql})`, type: 'text' };
    if (typeof op === 'string' && Object.hasOwn(ARITHMETIC, op)) {
      const [a, b] = comparable(left, right, node);
      return { sql: `(${a} ${ARITHMETIC[op]} ${b})`, type: 'number' };
    }
    if (op === 'Divide') {
      // BigQuery's `/` is FLOAT64 division (never SQLite's integer division), and an error by 0.
      return { sql: `lf_divide(${left.sql}, ${right.sql})`, type: 'number' };
    }
    throw unsupported(`the operator ${String(op)}`, node);
  }

  #unary(node: SyntaxNode): Translated {
    const op = field(node, 'op');
    const operand = this.translate(field(node, 'expr'));
    if (op === 'Not') return { sql: `(NOT ${operand.sql})`, type: 'bool' };
    if (op === 'Minus' || op === 'Plus') {
      const literalValue = typeof operand.literal === 'number' && op === 'Minus'
        ? -operand.literal
        : operand.literal;
      return {
        sql: `(${op === 'Minus' ? '-' : '+'}${operand.sql})`,
        type: 'number',
        literal: literalValue,
      };
    }
    throw unsupported(`the operator ${String(op)}`, node);
  }

  #isTruth(kind: string, node: SyntaxNode): Translated {
    const operand = this.translate(node).sql;
    const truth = kind === 'IsTrue' || kind === 'IsNotFalse' ? 1 : 0;
    const negated = kind.startsWith('IsNot');
    return { sql: `(${operand} IS ${negated ? 'NOT ' : ''}${truth})`, type: 'bool' };
  }

  #inList(node: SyntaxNode): Translated {
    const subject = this.translate(field(node, 'expr'));
    const items = list(node, 'list').map((item) => this.translate(item));
    if (items.length === 0) throw unsupported('an empty IN list', node);
    const sides = items.map((item) => comparable(subject, item, node));
    const not = field(node, 'negated') === true ? 'NOT ' : '';
    const subjects = new Set(sides.map(([made]) => made));
    if (subjects.size !== 1) {
      // BigQuery needs one type for the items (text and numbers have none in common).
      throw new SqlRefusal(
        `the items of an IN list must be of one type` +
          (placeOf(node) === '' ? '' : ` (${placeOf(node)})`),
      );
    }
    const [made] = subjects;
    return {
      sql: `(${made} ${not}IN (${sides.map(([, item]) => item).join(', ')}))`,
      type: 'bool',
    };
  }

  #between(node: SyntaxNode): Translated {
    const subject = this.translate(field(node, 'expr'));
    const [a, low] = comparable(subject, this.translate(field(node, 'low')), node);
    const [, high] = comparable(subject, this.translate(field(node, 'high')), node);
    const not = field(node, 'negated') === true ? 'NOT ' : '';
    return { sql: `(${a} ${not}BETWEEN ${low} AND ${high})`, type: 'bool' };
  }

  #like(caseless: boolean, node: SyntaxNode): Translated {
    if (field(node, 'any') === true) throw unsupported('LIKE ANY', node);
    if (!isAbsent(field(node, 'escape_char'))) throw unsupported('LIKE … ESCAPE', node);
    let subject = this.translate(field(node, 'expr')).sql;
    let pattern = this.translate(field(node, 'pattern')).sql;
    if (caseless) [subject, pattern] = [`lower(${subject})`, `lower(${pattern})`];
    const not = field(node, 'negated') === true ? 'NOT ' : '';
    // BigQuery's LIKE is case-sensitive (the engine sets case_sensitive_like) and escapes with `\`.
    return { sql: `(${subject} ${not}LIKE ${pattern} ESCAPE '\\')`, type: 'bool' };
  }

  #case(node: SyntaxNode): Translated {
    const operand = field(node, 'operand');
    const head = isAbsent(operand) ? '' : ` ${this.translate(operand).sql}`;
    const results: Translated[] = [];
    const arms = list(node, 'conditions').map((arm) => {
      const when = this.translate(field(arm, 'condition')).sql;
      const then = this.translate(field(arm, 'result'));
      results.push(then);
      return ` WHEN ${when} THEN ${then.sql}`;
    });
    if (arms.length === 0) throw unsupported('a CASE without WHEN', node);
    const otherwise = field(node, 'else_result');
    let tail = '';
    if (!isAbsent(otherwise)) {
      const value = this.translate(otherwise);
      results.push(value);
      tail = ` ELSE ${value.sql}`;
    }
    return { sql: `(CASE${head}${arms.join('')}${tail} END)`, type: commonType(results) };
  }

  #trim(node: SyntaxNode): Translated {
    const subject = this.translate(field(node, 'expr')).sql;
    const where = field(node, 'trim_where');
    const what = field(node, 'trim_what');
    // `trim(x, 'ab')` (BigQuery's form) or `trim(both 'ab' from x)`.
    const characters = list(node, 'trim_characters');
    if (characters.length > 1) throw unsupported('TRIM of more than one set of characters', node);
    const set = characters[0] ?? (isAbsent(what) ? undefined : what);
    const chars = set === undefined ? '' : `, ${this.translate(set).sql}`;
    const fn = where === 'Leading' ? 'ltrim' : where === 'Trailing' ? 'rtrim' : 'trim';
    return { sql: `${fn}(${subject}${chars})`, type: 'text' };
  }

  #cast(node: SyntaxNode): Translated {
    const kind = field(node, 'kind');
    const safe = kind === 'SafeCast';
    if (kind !== 'Cast' && kind !== 'SafeCast' && kind !== 'DoubleColon') {
      throw unsupported(`${String(kind)}`, node);
    }
    if (field(node, 'array') === true || !isAbsent(field(node, 'format'))) {
      throw unsupported('this CAST', node);
    }
    const subject = this.translate(field(node, 'expr'));
    const type = variantOf(field(node, 'data_type'), 'type').kind;
    switch (type) {
      case 'Int64':
      case 'Integer':
      case 'Int':
      case 'BigInt':
        return { sql: `${safe ? 'lf_safe_int64' : 'lf_int64'}(${subject.sql})`, type: 'number' };
      case 'Float64':
      case 'Numeric':
      case 'Double':
      case 'Real':
        return {
          sql: `${safe ? 'lf_safe_float64' : 'lf_float64'}(${subject.sql})`,
          type: 'number',
        };
      case 'String':
      case 'Text':
      case 'Varchar':
        // A timestamp as BigQuery writes it: `2026-11-21 10:15:30.123456+00`.
        return subject.type === 'timestamp'
          ? { sql: `lf_timestamp_text(${subject.sql})`, type: 'text' }
          : { sql: `CAST(${subject.sql} AS TEXT)`, type: 'text' };
      case 'Bool':
      case 'Boolean':
        return { sql: `${safe ? 'lf_safe_bool' : 'lf_bool'}(${subject.sql})`, type: 'bool' };
      case 'Timestamp':
      case 'Datetime':
        return this.timestamp(subject, safe, node);
      default:
        throw unsupported(`CAST to ${type}`, node);
    }
  }

  /** `subject` as a timestamp (µs): a timestamp as it is, a text parsed (NULL when `safe`). */
  timestamp(subject: Translated, safe: boolean, node: SyntaxNode): Translated {
    if (subject.type === 'timestamp') return subject;
    if (typeof subject.literal === 'string') {
      return {
        sql: comparable(subject, { sql: '', type: 'timestamp' }, node)[0],
        type: 'timestamp',
      };
    }
    return {
      sql: `${safe ? 'lf_safe_timestamp' : 'lf_timestamp'}(${subject.sql})`,
      type: 'timestamp',
    };
  }
}
