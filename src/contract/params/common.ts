/**
 * Reading query-string parameters and reporting what is wrong with them, shared by the three
 * endpoints' parameter parsers.
 *
 * Rules common to every endpoint (CONTRACT section 4, as the reference system reads parameters):
 * - All values are strings; unknown parameters are ignored.
 * - A repeated parameter takes its last value (as Plug keeps it).
 * - A required parameter that is absent or empty is `missing_parameter`, unless its rule has a
 *   fallback (taken as the reference system takes a NULL parameter).
 * - `sql` and `lql` are ignored: sandboxing is disabled on every endpoint.
 *
 * @module
 */

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
 * readParam(new URLSearchParams('a=1&a=2'), 'a'); // '2'
 * readParam({ a: '' }, 'a'); // ''
 * readParam({}, 'a'); // null
 * ```
 */
export function readParam(source: ParamSource, name: string): string | null {
  if (source instanceof URLSearchParams) return source.getAll(name).at(-1) ?? null;
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

/**
 * Parameters that would carry a caller's own query. Sandboxing is disabled on every endpoint, so
 * the reference system ignores them there, and so does this service (the HTTP API says so in a
 * response header).
 */
const QUERY_PARAMETERS = ['sql', 'lql'] as const;

/**
 * Which of {@link QUERY_PARAMETERS} a call carries (even empty): they are ignored.
 *
 * @example
 * ```ts
 * ignoredQueryParameters(new URLSearchParams('project=p&sql=select+1')); // ['sql']
 * ```
 */
export function ignoredQueryParameters(source: ParamSource): string[] {
  return QUERY_PARAMETERS.filter((name) => readParam(source, name) !== null);
}

/** Project-ref hint shared by the messages of missing `project` parameters. */
export const PROJECT_REF_HINT = 'the project ref, e.g. project=abcdefghijklmnopqrst';
