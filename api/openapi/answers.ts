/**
 * The answers the OpenAPI document describes on many operations: JSON bodies by schema, the
 * error envelope, and the errors every authenticated route (and every path) may give.
 *
 * @module
 */
import { MAX_HEAD_BYTES } from '../refusals.ts';
import { MAX_URL_LENGTH } from '../middleware/request-limits.ts';
import type { Schema } from './schemas.ts';

/** An OpenAPI object (the document or a part of it). */
export type OpenApiObject = { readonly [key: string]: unknown };

export function json(schema: string, description: string): OpenApiObject {
  return {
    description,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
  };
}

export function error(description: string, headers: Record<string, Schema> = {}): OpenApiObject {
  return {
    ...json('Error', description),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
  };
}

export const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
};
export const ALLOW = { Allow: { description: 'The allowed methods', schema: { type: 'string' } } };

/**
 * Answers any path may get, public ones too, before a route sees the request: the URL bound runs
 * first, and on Node the adapter answers what its HTTP parser refuses (`api/adapters/node.ts`).
 */
export const TRANSPORT_ERRORS: Readonly<Record<string, OpenApiObject>> = {
  '408': error(
    '`request_timeout`: the header fields or the whole request did not arrive within their ' +
      'timeout (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS; Node).',
  ),
  '414': error(`The URL is longer than ${MAX_URL_LENGTH} characters.`),
  '431': error(
    '`request_header_fields_too_large`: the request line and header fields are larger than ' +
      `${MAX_HEAD_BYTES} bytes together (Node).`,
  ),
};

/** The adapter's share of any operation's 400. */
const ADAPTER_BAD_REQUEST = '`bad_request`: no `Host` header or a malformed one; on Node also a ' +
  'target that is not a path (`OPTIONS *`) or anything else that is not valid HTTP/1.1.';

/** A 400 answer: the operation's own reasons, if any, then the adapter's. */
export function badRequest(own = ''): OpenApiObject {
  return error(own === '' ? ADAPTER_BAD_REQUEST : `${own} ${ADAPTER_BAD_REQUEST}`);
}

/** The rate limit's answer (RATE_LIMIT_*), on every path but the probes and `/metrics`. */
export const RATE_LIMITED = error(
  '`rate_limited`: the API key (or, without a valid key, the client address) has sent more ' +
    'requests than RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST allow, or (`usage.api-counts`) ' +
    "the key's costly patterns have used its share of matching time; retry after " +
    '`Retry-After` seconds.',
  RETRY_AFTER,
);

/** Answers every authenticated route may give besides its own. */
export const COMMON_ERRORS: Readonly<Record<string, OpenApiObject>> = {
  '429': RATE_LIMITED,
  '401': error('No API key, or not one of the configured keys (checked first).', {
    'WWW-Authenticate': { schema: { type: 'string' } },
  }),
  '405': error('Method not allowed here; `Allow` lists the allowed ones.', ALLOW),
  '500': error('Unexpected failure of the service (logged; the message is generic).'),
  ...TRANSPORT_ERRORS,
};
