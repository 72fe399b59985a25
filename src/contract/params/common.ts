/**
 * Reading query-string parameters and reporting what is wrong with them, shared by the three
 * endpoints' parameter parsers.
 *
 * Rules common to every endpoint:
 * - All values are strings; unknown parameters are ignored.
 * - A repeated parameter: the first value wins (as `URLSearchParams.get`).
 * - A required parameter that is absent or empty is `missing_parameter`.
 * - `sql` or `lql` present, even empty, is `invalid_parameter`: sandboxing is disabled.
 *
 * @module
 */

import type { EndpointName } from '../registry.ts';

/** Why the parameters of a call were refused; answered as HTTP 400. */
export interface ParamError {
  readonly code: 'missing_parameter' | 'invalid_parameter';
  /** The offending parameter's name. */
  readonly parameter: string;
  /** Names the parameter and what is allowed. */
  readonly message: string;
}

/**
 * A parameter refused only while the answer was being read (e.g. a pattern too costly to match
 * against what the store holds): answered as HTTP 400 like any other {@link ParamError}.
 *
 * @example
 * ```ts
 * throw new ParamRefusal({ code: 'invalid_parameter', parameter: 'project', message: '…' });
 * ```
 */
export class ParamRefusal extends Error {
  readonly error: ParamError;

  constructor(error: ParamError) {
    super(error.message);
    this.name = 'ParamRefusal';
    this.error = error;
  }
}

/** Typed parameters, or the first thing wrong with them. */
export type ParamResult<T> =
  | { readonly ok: true; readonly params: T }
  | { readonly ok: false; readonly error: ParamError };

/** Where parameters come from: a query string, or a plain record of strings. */
export type ParamSource = URLSearchParams | Readonly<Record<string, string | undefined>>;

/**
 * The value of a parameter, or null when absent.
 *
 * @example
 * ```ts
 * readParam(new URLSearchParams('a=1&a=2'), 'a'); // '1'
 * readParam({ a: '' }, 'a'); // ''
 * readParam({}, 'a'); // null
 * ```
 */
export function readParam(source: ParamSource, name: string): string | null {
  if (source instanceof URLSearchParams) return source.get(name);
  return Object.hasOwn(source, name) ? source[name] ?? null : null;
}

/**
 * A `missing_parameter` failure. `expected` says what to give.
 *
 * @example
 * ```ts
 * missingParameter('interval', 'one of minutely, hourly, daily').error.message;
 * // 'missing required parameter "interval": one of minutely, hourly, daily'
 * ```
 */
export function missingParameter(
  parameter: string,
  expected: string,
): { readonly ok: false; readonly error: ParamError } {
  return {
    ok: false,
    error: {
      code: 'missing_parameter',
      parameter,
      message: `missing required parameter "${parameter}": ${expected}`,
    },
  };
}

/**
 * An `invalid_parameter` failure: what was expected and what was given.
 *
 * @example
 * ```ts
 * invalidParameter('interval', 'one of minutely, hourly, daily', 'weekly').error.message;
 * // 'invalid parameter "interval": expected one of minutely, hourly, daily; got "weekly"'
 * ```
 */
export function invalidParameter(
  parameter: string,
  expected: string,
  given: string,
): { readonly ok: false; readonly error: ParamError } {
  return {
    ok: false,
    error: {
      code: 'invalid_parameter',
      parameter,
      message: `invalid parameter "${parameter}": expected ${expected}; got ${
        JSON.stringify(given.length > 100 ? `${given.slice(0, 100)}...` : given)
      }`,
    },
  };
}

/**
 * A required parameter's non-empty value, or `missing_parameter` when absent or empty.
 *
 * @example
 * ```ts
 * requiredParam({ project: 'p' }, 'project', 'a project ref'); // { ok: true, params: 'p' }
 * ```
 */
export function requiredParam(
  source: ParamSource,
  name: string,
  expected: string,
): ParamResult<string> {
  const value = readParam(source, name);
  if (value === null || value === '') return missingParameter(name, expected);
  return { ok: true, params: value };
}

/** Parameters that would carry caller-supplied queries. */
export const QUERY_PARAMETERS = ['sql', 'lql'] as const;

/**
 * `invalid_parameter` when the call carries `sql` or `lql` (even empty): query sandboxing is
 * disabled on every endpoint. Null when neither is present.
 *
 * @example
 * ```ts
 * rejectQueryParameters({ sql: 'select 1' }, 'logs.all')?.error.parameter; // 'sql'
 * ```
 */
export function rejectQueryParameters(
  source: ParamSource,
  endpoint: EndpointName,
): { readonly ok: false; readonly error: ParamError } | null {
  for (const name of QUERY_PARAMETERS) {
    if (readParam(source, name) !== null) {
      return {
        ok: false,
        error: {
          code: 'invalid_parameter',
          parameter: name,
          message:
            `invalid parameter "${name}": query sandboxing is disabled on ${endpoint}, so sql and lql are not accepted; remove it`,
        },
      };
    }
  }
  return null;
}

/** Project-ref hint shared by the messages of missing `project` parameters. */
export const PROJECT_REF_HINT = 'the project ref, e.g. project=abcdefghijklmnopqrst';
