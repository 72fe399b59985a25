/**
 * The functions SQLite calls back for BigQuery's meaning where SQLite has none of its own:
 * `REGEXP_CONTAINS` on RE2 (re2js: linear time whatever the pattern, as BigQuery's own RE2), the
 * strict and `SAFE_` casts (a strict cast of a bad value is an error naming it, a safe one NULL),
 * and `starts_with`/`ends_with`. An error thrown here ends the query with its message.
 *
 * @module
 */
import { RE2JS, RE2JSException } from 're2js';
import { formatTimestamp, parseParameterTimestamp } from '../time/timestamp.ts';

/** A value SQLite passes to or takes from a function. */
export type SqlValue = number | string | Uint8Array | null;

/** Longest text `concat` and `||` make, in characters: no value grows past it. */
export const MAX_CONCAT_LENGTH = 1_048_576;

/** Longest regular expression taken, in characters. */
export const MAX_PATTERN_LENGTH = 1024;

const NUMBER = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;
/** One step of a JSONPath as BigQuery's JSON_VALUE takes it: `.name`, `['name']` or `[0]`. */
const PATH_STEP =
  /^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*(\d{1,9})\s*\])/;

/** The steps of a JSONPath (`$.a['b'][0]`), or an error naming it. */
function pathSteps(path: string): (string | number)[] {
  if (!path.startsWith('$')) throw new Error(`JSONPath must start with '$': ${path.slice(0, 80)}`);
  const steps: (string | number)[] = [];
  let rest = path.slice(1);
  while (rest !== '') {
    const step = PATH_STEP.exec(rest);
    if (step === null) throw new Error(`Unsupported JSONPath: ${path.slice(0, 80)}`);
    const [whole, name, single, double, index] = step;
    steps.push(index !== undefined ? Number(index) : (name ?? single ?? double ?? ''));
    rest = rest.slice(whole.length);
  }
  return steps;
}

/** BigQuery's JSON_VALUE: the scalar at `path` of a JSON text, as text; NULL otherwise. */
function jsonValue(value: SqlValue, path: SqlValue): SqlValue {
  const source = text(value);
  const where = text(path);
  if (source === null || where === null) return null;
  const steps = pathSteps(where);
  let found: unknown;
  try {
    found = JSON.parse(source);
  } catch {
    return null;
  }
  for (const step of steps) {
    if (found === null || typeof found !== 'object') return null;
    found = typeof step === 'number'
      ? (Array.isArray(found) ? found[step] : undefined)
      : (Array.isArray(found) ? undefined : (found as Record<string, unknown>)[step]);
  }
  if (found === null || found === undefined || typeof found === 'object') return null;
  return String(found);
}

/** `made`, unless longer than {@link MAX_CONCAT_LENGTH}: then an error naming `what`. */
function bounded(made: string, what: string): string {
  if (made.length > MAX_CONCAT_LENGTH) {
    throw new Error(`${what} makes a text of more than ${MAX_CONCAT_LENGTH} characters`);
  }
  return made;
}
const INTEGER = /^\s*[-+]?\d{1,18}\s*$/;

function text(value: SqlValue): string | null {
  if (value === null) return null;
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
}

/** A field's value as a number, or NULL (compared with a number, a text of digits is one). */
function toNumber(value: SqlValue): number | null {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && NUMBER.test(value) ? Number(value) : null;
}

function int64(value: SqlValue): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value) : null;
  return typeof value === 'string' && INTEGER.test(value) ? Number(value) : null;
}

function bool(value: SqlValue): number | null {
  if (typeof value === 'number') return value === 0 ? 0 : 1;
  const lower = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return lower === 'true' ? 1 : lower === 'false' ? 0 : null;
}

function timestamp(value: SqlValue): number | null {
  return typeof value === 'string' ? parseParameterTimestamp(value.trim()) : null;
}

/** A strict cast: NULL stays NULL, a value it cannot read is an error naming it. */
function strict(name: string, cast: (value: SqlValue) => number | null) {
  return (value: SqlValue): number | null => {
    if (value === null) return null;
    const cast_ = cast(value);
    if (cast_ === null) {
      throw new Error(
        `Bad ${name} value: ${JSON.stringify(text(value) ?? '(bytes)').slice(0, 80)}`,
      );
    }
    return cast_;
  };
}

/** Compiled patterns of one engine, reused across rows and queries (bounded). */
class Patterns {
  readonly #compiled = new Map<string, RE2JS>();

  get(pattern: string): RE2JS {
    let compiled = this.#compiled.get(pattern);
    if (compiled !== undefined) return compiled;
    if (pattern.length > MAX_PATTERN_LENGTH) {
      throw new Error(
        `a regular expression is ${pattern.length} characters; at most ${MAX_PATTERN_LENGTH}`,
      );
    }
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      if (error instanceof RE2JSException) {
        throw new Error(
          `Cannot parse regular expression ${
            JSON.stringify(pattern.slice(0, 80))
          }: ${error.message}`,
        );
      }
      throw error;
    }
    if (this.#compiled.size >= 64) this.#compiled.clear();
    this.#compiled.set(pattern, compiled);
    return compiled;
  }
}

/** Each function by the name the translation calls it. */
export function engineFunctions(): Readonly<Record<string, (...args: SqlValue[]) => SqlValue>> {
  const patterns = new Patterns();
  return {
    lf_regexp_contains: (value, pattern) => {
      const subject = text(value);
      const source = text(pattern);
      if (subject === null || source === null) return null;
      return patterns.get(source).matcher(subject).find() ? 1 : 0;
    },
    lf_starts_with: (value, prefix) => {
      const [a, b] = [text(value), text(prefix)];
      return a === null || b === null ? null : a.startsWith(b) ? 1 : 0;
    },
    lf_ends_with: (value, suffix) => {
      const [a, b] = [text(value), text(suffix)];
      return a === null || b === null ? null : a.endsWith(b) ? 1 : 0;
    },
    lf_number: (value) => toNumber(value),
    lf_lower: (value) => {
      const made = text(value)?.toLowerCase();
      return made === undefined ? null : bounded(made, 'lower');
    },
    lf_upper: (value) => {
      const made = text(value)?.toUpperCase();
      return made === undefined ? null : bounded(made, 'upper');
    },
    lf_json_value: jsonValue,
    lf_safe_divide: (dividend, divisor) => {
      const [x, y] = [toNumber(dividend), toNumber(divisor)];
      return x === null || y === null || y === 0 ? null : x / y;
    },
    lf_concat: (left, right) => {
      const [a, b] = [text(left), text(right)];
      if (a === null || b === null) return null;
      if (a.length + b.length > MAX_CONCAT_LENGTH) bounded(`${a}${b}`, 'concat');
      return a + b;
    },
    lf_divide: (dividend, divisor) => {
      const [x, y] = [toNumber(dividend), toNumber(divisor)];
      if (x === null || y === null) return null;
      if (y === 0) throw new Error(`division by zero: ${x} / ${y}`);
      return x / y;
    },
    lf_timestamp_text: (value) =>
      typeof value === 'number' && Number.isSafeInteger(value)
        ? `${formatTimestamp(value).slice(0, 26).replace('T', ' ')}+00`
        : null,
    lf_int64: strict('int64', int64),
    lf_safe_int64: (value) => int64(value),
    lf_float64: strict('double', toNumber),
    lf_safe_float64: (value) => toNumber(value),
    lf_bool: strict('bool', bool),
    lf_safe_bool: (value) => bool(value),
    lf_timestamp: strict('timestamp', timestamp),
    lf_safe_timestamp: (value) => timestamp(value),
  };
}
