/**
 * The parameters of an endpoint call as the reference system reads them: the query string, and
 * for POST also a JSON object body of string values, which wins over the query string. A
 * repeated parameter takes its last value. The result holds one value per name, so everything
 * downstream (the answer's reuse key, the parsers) reads the same value.
 *
 * @module
 */
import { HttpError } from '../errors.ts';
import { readParam } from '../../src/contract/params/common.ts';

/** Names the parameters a call carried that were ignored (`sql`, `lql`: sandboxing is off). */
export const IGNORED_PARAMETERS_HEADER = 'X-Ignored-Parameters';

/** The header that turns PII redaction on or off for one request, over the record's setting. */
export const REDACT_PII_HEADER = 'LF-ENDPOINT-REDACT-PII';

/** Largest POST body of parameters, in bytes (parameters are short; a pattern is 256 characters). */
export const MAX_PARAMETER_BODY_BYTES = 64 * 1024;

/**
 * The parameters of `url`'s query string (after its `?`, before any `#`), as
 * `new URL(url).searchParams` reads them, without parsing the rest of the URL (3% of a CPU
 * profile of the API answering reused answers under load). `url` is a request's URL as the
 * runtimes hand it: a URL serialized (its query escaped, ASCII only), or a raw target of plain
 * characters; raw text beyond ASCII beside escapes would be read otherwise.
 *
 * @example
 * ```ts
 * queryParams('http://h/api/endpoints/x?project=p&interval=1hr').get('interval'); // '1hr'
 * ```
 */
export function queryParams(url: string): URLSearchParams {
  const start = url.indexOf('?');
  const end = url.indexOf('#');
  // A `?` inside the fragment starts no query.
  if (start < 0 || (end >= 0 && end < start)) return new URLSearchParams();
  // From the `?` on: the constructor drops one leading `?`, so a second one stays in the name.
  return new URLSearchParams(url.slice(start, end < 0 ? url.length : end));
}

function invalid(detail: string, options?: ErrorOptions): HttpError {
  return new HttpError(
    'invalid_body',
    `the body must be a JSON object of parameter names to string values: ${detail}`,
    {},
    options,
  );
}

/**
 * One value per parameter: the last one of the query string, then those of `body` (a JSON
 * object of strings; null or empty means none) over them.
 *
 * @example
 * ```ts
 * effectiveParams(new URLSearchParams('project=a&project=b&interval=1hr'), '{"interval":"5min"}');
 * // URLSearchParams { project: 'b', interval: '5min' }
 * ```
 */
export function effectiveParams(query: URLSearchParams, body: string | null): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of new Set(query.keys())) params.set(name, readParam(query, name) ?? '');
  if (body === null || body.trim() === '') return params;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    if (error instanceof SyntaxError) {
      throw invalid(`not JSON (${error.message})`, { cause: error });
    }
    throw error;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalid(`got ${Array.isArray(parsed) ? 'an array' : JSON.stringify(parsed)}`);
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value !== 'string') {
      throw invalid(`"${name.slice(0, 100)}" is ${value === null ? 'null' : typeof value}`);
    }
    params.set(name, value);
  }
  return params;
}
