/**
 * The error envelope of every non-2xx answer (CONTRACT section 4):
 * `{"error": {"code": "…", "message": "…"}}`, never a stack trace.
 *
 * @module
 */

/** Every error code the API answers, with its HTTP status. */
export const ERROR_STATUS = {
  missing_parameter: 400,
  invalid_parameter: 400,
  invalid_body: 400,
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  method_not_allowed: 405,
  incomplete_body: 400,
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  rate_limited: 429,
  request_header_fields_too_large: 431,
  internal: 500,
  unavailable: 503,
  insufficient_storage: 507,
} as const;

/** An error code of the envelope. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** The JSON media type of every answer with a body. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The headers of every JSON answer: its type, and `nosniff`, so that no browser takes an answer
 * that echoes a caller's text (a message, a log line) for HTML or script.
 */
export const JSON_HEADERS = {
  'Content-Type': JSON_TYPE,
  'X-Content-Type-Options': 'nosniff',
} as const;

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * An error a handler throws to answer with the envelope; anything else thrown becomes 500
 * `internal` with a generic message (and is logged).
 *
 * @example
 * ```ts
 * throw new HttpError('not_found', 'no endpoint named "x": GET /api/endpoints lists them');
 * ```
 */
export class HttpError extends Error {
  readonly code: ErrorCode;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'HttpError';
    this.code = code;
    this.headers = headers;
  }

  /** The HTTP status of {@link HttpError.code}. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/**
 * The envelope response for `code`.
 *
 * @example
 * ```ts
 * const response = errorResponse('unavailable', 'the store is not answering; retry shortly', {
 *   'Retry-After': '1',
 * });
 * response.status; // 503
 * ```
 */
export function errorResponse(
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status: ERROR_STATUS[code],
    headers: { ...JSON_HEADERS, 'Cache-Control': 'no-store', ...headers },
  });
}

/**
 * The message of every 500 `internal`, from the app or an adapter: the cause goes to the log,
 * never to the client.
 */
export const INTERNAL_MESSAGE = 'the service failed unexpectedly (the error is logged): retry, ' +
  'and if it fails again, give the operator the time of the request';

/**
 * A 503 `unavailable`, with `Retry-After`.
 *
 * @example
 * ```ts
 * throw unavailable('the store did not answer within 5 s');
 * ```
 */
export function unavailable(message: string, options?: ErrorOptions): HttpError {
  return new HttpError(
    'unavailable',
    message,
    { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    options,
  );
}

/**
 * A 429 `rate_limited`, with `Retry-After` in whole seconds (at least 1) and the same figure in
 * the message after `what`.
 *
 * @example
 * ```ts
 * rateLimited('this API key sent more than 3 requests at once', 400).headers['Retry-After']; // '1'
 * ```
 */
export function rateLimited(what: string, retryAfterMs: number): HttpError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new HttpError('rate_limited', `${what}: retry after ${seconds} s`, {
    'Retry-After': String(seconds),
  });
}

/**
 * A 405 `method_not_allowed` naming the allowed methods, in the message and in `Allow`.
 *
 * @example
 * ```ts
 * methodNotAllowed('DELETE', ['GET', 'HEAD', 'OPTIONS']).headers.Allow; // 'GET, HEAD, OPTIONS'
 * ```
 */
export function methodNotAllowed(method: string, allowed: readonly string[]): HttpError {
  const allow = allowed.join(', ');
  return new HttpError('method_not_allowed', `${method} is not allowed here; use ${allow}`, {
    Allow: allow,
  });
}
