/**
 * The OpenAPI 3.1 document of the API (`GET /openapi.json`): every route, parameter, row and
 * error, built from the endpoint records this deployment serves (so overridden ids appear).
 *
 * @module
 */
import { SERVICE_NAME } from '../../src/config/defaults.ts';
import { MAX_PATTERN_LENGTH } from '../../src/contract/params/api-counts.ts';
import type { EndpointRecord, ParameterSpec } from '../../src/contract/registry.ts';
import { SOURCES } from '../../src/events/types.ts';
import { MAX_BODY_DEPTH } from '../ingest/body.ts';
import { API_KEY_HEADER, API_KEY_PARAMETER } from '../middleware/auth.ts';
import {
  IGNORED_PARAMETERS_HEADER,
  MAX_PARAMETER_BODY_BYTES,
  REDACT_PII_HEADER,
} from '../answer/query-params.ts';
import { MAX_HEAD_BYTES } from '../refusals.ts';
import { TRUNCATED_HEADER } from '../answer/answer.ts';
import { MAX_URL_LENGTH } from '../middleware/request-limits.ts';
import { recordRoutes } from '../records.ts';
import { MAX_LISTED_PROJECTS } from '../explorer/projects.ts';
import { RESULT_SCHEMA, type Schema, SCHEMAS } from './schemas.ts';

/** An OpenAPI object (the document or a part of it). */
export type OpenApiObject = { readonly [key: string]: unknown };

function json(schema: string, description: string): OpenApiObject {
  return {
    description,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
  };
}

function error(description: string, headers: Record<string, Schema> = {}): OpenApiObject {
  return {
    ...json('Error', description),
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
  };
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } },
};
const ALLOW = { Allow: { description: 'The allowed methods', schema: { type: 'string' } } };

/**
 * Answers any path may get, public ones too, before a route sees the request: the URL bound runs
 * first, and on Node the adapter answers what its HTTP parser refuses (`api/adapters/node.ts`).
 */
const TRANSPORT_ERRORS: Readonly<Record<string, OpenApiObject>> = {
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
function badRequest(own = ''): OpenApiObject {
  return error(own === '' ? ADAPTER_BAD_REQUEST : `${own} ${ADAPTER_BAD_REQUEST}`);
}

/** The rate limit's answer (RATE_LIMIT_*), on every path but the probes and `/metrics`. */
const RATE_LIMITED = error(
  '`rate_limited`: the API key (or, without a valid key, the client address) has sent more ' +
    'requests than RATE_LIMIT_PER_SECOND and RATE_LIMIT_BURST allow, or (`usage.api-counts`) ' +
    "the key's costly patterns have used its share of matching time; retry after " +
    '`Retry-After` seconds.',
  RETRY_AFTER,
);

/** Answers every authenticated route may give besides its own. */
const COMMON_ERRORS: Readonly<Record<string, OpenApiObject>> = {
  '429': RATE_LIMITED,
  '401': error('No API key, or not one of the configured keys (checked first).', {
    'WWW-Authenticate': { schema: { type: 'string' } },
  }),
  '405': error('Method not allowed here; `Allow` lists the allowed ones.', ALLOW),
  '500': error('Unexpected failure of the service (logged; the message is generic).'),
  ...TRANSPORT_ERRORS,
};

/**
 * A parameter's schema, as strict as the service: required ones are non-empty, a closed list
 * that is not a fallback (the `interval` of `usage.api-counts`) is an enum, and the pattern of
 * `usage.api-counts` is at most 256 characters.
 */
function parameterSchema(record: EndpointRecord, parameter: ParameterSpec): Schema {
  const closed = parameter.values !== undefined && parameter.required;
  return {
    type: 'string',
    ...(parameter.required ? { minLength: 1 } : {}),
    ...(closed ? { enum: [...(parameter.values ?? [])] } : {}),
    ...(!closed && parameter.values !== undefined ? { examples: [...parameter.values] } : {}),
    ...(record.name === 'usage.api-counts' && parameter.name === 'project'
      ? { maxLength: MAX_PATTERN_LENGTH, format: 'regex' }
      : {}),
    ...(parameter.name.startsWith('iso_timestamp_') ? { pattern: PARAMETER_TIMESTAMP } : {}),
  };
}

/**
 * The timestamps `logs.all` accepts (empty: none), as a JSON Schema pattern: RFC 3339 with or
 * without a zone, a date alone, minutes without seconds, offsets `±hh:mm`, `±hhmm`, `±hh` or a
 * decoded `+` (a space). Days stop at 28 and years run 1700 to 2249 so that every string the
 * pattern allows is a real instant the service accepts (its own check is exact: 2026-02-29 is
 * refused, 2028-02-29 accepted).
 */
const PARAMETER_TIMESTAMP = '^(?:(?:1[7-9]\\d\\d|2[01]\\d\\d|22[0-4]\\d)-(?:0[1-9]|1[0-2])-' +
  '(?:0[1-9]|1\\d|2[0-8])(?:[Tt ](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?' +
  '(?:[Zz]|[+-](?:[01]\\d|2[0-3])(?::?[0-5]\\d)?| (?:[01]\\d|2[0-3]):[0-5]\\d)?)?)?$';

const STRING_PARAMETERS: Schema = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Parameter names to string values; they win over the query string.',
};

function endpointOperation(record: EndpointRecord, path: string, method: string): OpenApiObject {
  return {
    operationId: `${record.name}:${method}:${path}`,
    summary: record.name,
    description: `${record.description} At most ${record.maxRows} rows. ` +
      'Unknown parameters are ignored, a repeated one takes its last value; `sql` and `lql` ' +
      `are ignored (sandboxing is disabled) and named in the ${IGNORED_PARAMETERS_HEADER} header.`,
    tags: ['endpoints'],
    parameters: [
      ...record.parameters.map((parameter) => ({
        name: parameter.name,
        in: 'query',
        required: parameter.required,
        description: parameter.description,
        schema: parameterSchema(record, parameter),
      })),
      {
        name: REDACT_PII_HEADER,
        in: 'header',
        required: false,
        description: 'true: replace every IPv4 and IPv6 address in the rows by REDACTED; false: ' +
          `do not; anything else: the record's redact_pii (${String(record.redactPii)}).`,
        schema: { type: 'string', examples: ['true', 'false'] },
      },
    ],
    responses: {
      '200': {
        ...json(RESULT_SCHEMA[record.name], 'The rows.'),
        headers: {
          ETag: { description: 'Weak tag of the body', schema: { type: 'string' } },
          [IGNORED_PARAMETERS_HEADER]: {
            description: 'The sql and lql parameters the call carried, which were ignored',
            schema: { type: 'string' },
          },
          [TRUNCATED_HEADER]: {
            description: 'Present when rows were left out to keep the answer within ' +
              'HTTP_ANSWER_MAX_BYTES: `rows=<rows sent>; max-bytes=<the limit>`. The rows sent ' +
              'are the first ones, each whole.',
            schema: { type: 'string', examples: ['rows=15; max-bytes=2097152'] },
          },
          'X-Content-Type-Options': { description: 'nosniff', schema: { type: 'string' } },
          'Cache-Control': {
            description: record.name === 'logs.all' ? 'no-store' : 'private, no-cache',
            schema: { type: 'string' },
          },
        },
      },
      '304': { description: '`If-None-Match` holds the current ETag: the rows did not change.' },
      '400': badRequest(
        '`missing_parameter` or `invalid_parameter`: the message names the parameter and the ' +
          'allowed values' +
          (method === 'post' ? '; `invalid_body`: not a JSON object of strings.' : '.'),
      ),
      ...(method === 'post'
        ? { '413': error(`The body is larger than ${MAX_PARAMETER_BODY_BYTES} bytes.`) }
        : {}),
      ...COMMON_ERRORS,
      '503': error('The store is not answering; retry after `Retry-After` seconds.', RETRY_AFTER),
    },
  };
}

/**
 * A path with the endpoint as a template parameter: any name or id, known or not. A known one is
 * answered as its own path documents it (rows of any of the three shapes); an unknown one is 404.
 */
function templatePath(description: string, known: readonly string[]): OpenApiObject {
  return {
    get: {
      operationId: `template:${description}`,
      summary: description,
      tags: ['endpoints'],
      // Known names and ids have paths of their own, documented there.
      parameters: [{
        name: 'endpoint',
        in: 'path',
        required: true,
        schema: { type: 'string', not: { enum: [...known] } },
      }],
      responses: {
        '200': {
          description: 'The rows of a known endpoint (see its own path).',
          content: {
            'application/json': {
              schema: {
                oneOf: Object.values(RESULT_SCHEMA).map((schema) => ({
                  $ref: `#/components/schemas/${schema}`,
                })),
              },
            },
          },
        },
        '304': { description: '`If-None-Match` holds the current ETag.' },
        '400': badRequest('A known endpoint refused its parameters (see its own path).'),
        '404': error('No such endpoint.'),
        ...COMMON_ERRORS,
        '503': error('The store is not answering; retry after `Retry-After` seconds.', RETRY_AFTER),
      },
    },
  };
}

function publicGet(
  operationId: string,
  description: string,
  responses: Record<string, OpenApiObject>,
): OpenApiObject {
  return {
    get: {
      operationId,
      summary: description,
      tags: ['operations'],
      security: [],
      responses: {
        ...responses,
        '400': badRequest(),
        '405': COMMON_ERRORS['405'],
        '500': COMMON_ERRORS['500'],
        ...TRANSPORT_ERRORS,
      },
    },
  };
}

/**
 * The document for `records`.
 *
 * @example
 * ```ts
 * const document = openApiDocument(effectiveRecords({}));
 * Object.keys(document.paths as object).length; // 17
 * ```
 */
export function openApiDocument(records: readonly EndpointRecord[]): OpenApiObject {
  const paths: Record<string, OpenApiObject> = {};
  for (const record of records) {
    for (const route of recordRoutes(record)) {
      paths[route.path] = {
        get: endpointOperation(record, route.path, 'get'),
        ...(route.post
          ? {
            post: {
              ...endpointOperation(record, route.path, 'post'),
              requestBody: {
                required: false,
                content: { 'application/json': { schema: STRING_PARAMETERS } },
              },
            },
          }
          : {}),
      };
    }
  }
  paths['/api/endpoints'] = {
    get: {
      operationId: 'listEndpoints',
      summary: 'The endpoint records, with the ids this deployment answers to.',
      tags: ['endpoints'],
      responses: {
        '200': json('EndpointList', 'The records.'),
        '400': badRequest(),
        ...COMMON_ERRORS,
      },
    },
  };
  const names = records.map((record) => record.name);
  const refs = [...names, ...records.map((record) => record.id)];
  // The template parameter is `endpoint`, not `name` or `id`: a name or id read from the listing
  // goes to the endpoint's own path, not to these.
  paths['/api/endpoints/{endpoint}'] = templatePath('unknown endpoint name', names);
  paths['/api/endpoints/query/{endpoint}'] = templatePath('unknown endpoint name or id', refs);
  paths['/endpoints/query/{endpoint}'] = templatePath('unknown name or id (older path)', refs);
  paths['/api/endpoints/query/name/{endpoint}'] = templatePath(
    'unknown endpoint name (older path)',
    names,
  );
  paths['/api/ingest/{source}'] = {
    post: {
      operationId: 'ingest',
      summary:
        'Ingest events of one source: NDJSON (one event per line), a JSON array, or one JSON event.',
      description: 'Events are validated as the consumers validate them. Without Kafka they are ' +
        'folded into the store and visible to the next read; with Kafka they are published to ' +
        "the source's topic and the answer waits for every in-sync replica.",
      tags: ['ingest'],
      parameters: [{
        name: 'source',
        in: 'path',
        required: true,
        schema: { type: 'string', examples: [...SOURCES] },
      }],
      requestBody: {
        required: true,
        content: {
          'application/x-ndjson': { schema: { type: 'string' } },
          // Any JSON values, or one object: each is validated as an event and reported by
          // position if it is not; what is neither an array nor an object is 400 `invalid_body`.
          'application/json': {
            schema: {
              oneOf: [
                { type: 'array', items: {}, description: 'Events.' },
                { type: 'object', description: 'One event (on one line or pretty-printed).' },
              ],
            },
          },
        },
      },
      responses: {
        '202': json(
          'IngestResult',
          'Accepted and rejected counts, the first rejections explained.',
        ),
        '400': badRequest(
          '`invalid_body`: empty, not UTF-8, neither NDJSON, a JSON array nor one JSON object, an array that ' +
            `does not close or nests deeper than ${MAX_BODY_DEPTH} levels; \`incomplete_body\`: ` +
            'the client stopped sending before the body was complete.',
        ),
        ...COMMON_ERRORS,
        '404': error('Unknown source.'),
        '413': error(
          'The body is larger than INGEST_MAX_BYTES, or holds more events (lines or array ' +
            'elements) than INGEST_MAX_ITEMS.',
        ),
        '503': error('The store or Kafka did not take the events; retry.', RETRY_AFTER),
        '507': error(
          '`insufficient_storage`: the embedded store is at its memory budget ' +
            '(MEMORY_STORE_MAX_BYTES) with its rollups alone, after dropping the oldest logs.all ' +
            'entries; none of the events of the body were stored.',
        ),
      },
    },
  };
  paths['/api/explorer/projects'] = {
    get: {
      operationId: 'listProjects',
      summary: 'The projects seen sending API requests in the last 8 days, newest first ' +
        `(at most ${MAX_LISTED_PROJECTS}): the explorer's suggestions.`,
      tags: ['explorer'],
      responses: {
        '200': json('ProjectList', 'The projects.'),
        '400': badRequest(),
        ...COMMON_ERRORS,
        '503': error('The store did not answer; retry.', RETRY_AFTER),
      },
    },
  };
  paths['/'] = publicGet('explorer', 'The explorer: a page that draws the endpoints.', {
    '200': {
      description: 'HTML; its scripts and styles are under /explorer/.',
      content: { 'text/html': { schema: { type: 'string' } } },
    },
    '429': RATE_LIMITED,
  });
  paths['/openapi.json'] = publicGet('openapi', 'This document.', {
    '200': {
      description: 'OpenAPI 3.1',
      content: { 'application/json': { schema: { type: 'object' } } },
    },
    '429': RATE_LIMITED,
  });
  paths['/health'] = publicGet('health', "The process is up (the reference system's path).", {
    '200': json('Health', 'Up.'),
    '503': error(
      'Not ok: the message says what is wrong (the store refusing the writes of this process).',
      RETRY_AFTER,
    ),
  });
  paths['/healthz'] = publicGet('healthz', 'The process is up.', {
    '200': json('Health', 'Up.'),
    '503': error(
      'Not ok: the message says what is wrong (the store refusing the writes of this process).',
      RETRY_AFTER,
    ),
  });
  paths['/readyz'] = publicGet(
    'readyz',
    'The store answers and, with Kafka, its topics are ready.',
    {
      '200': json('Ready', 'Ready.'),
      '503': error('Not ready: the message names each part that is not, and why.', RETRY_AFTER),
    },
  );
  paths['/metrics'] = publicGet('metrics', 'Prometheus metrics (text exposition format).', {
    '200': {
      description: 'Request counts and latency by endpoint and status; ingested events.',
      content: { 'text/plain': { schema: { type: 'string' } } },
    },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: SERVICE_NAME,
      version: '0.1.0',
      description: 'Saved-query analytics endpoints answered from streaming rollups. Every path ' +
        'but the operational ones needs an API key, checked before anything else: ' +
        `Authorization: Bearer <key>, else the ${API_KEY_HEADER} header, else the api_key ` +
        'query parameter. CORS: ' +
        'any origin; OPTIONS preflight answered without a key. Values are encoded as the ' +
        'reference system returns its warehouse types: the timestamp of ' +
        'functions.invocation-stats and logs.all is an integer of microseconds since the epoch, ' +
        'that of usage.api-counts a YYYY-MM-DDTHH:MM:SS string in UTC.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    // Any one of the three forms; the first present is the one checked.
    security: [{ Bearer: [] }, { ApiKey: [] }, { ApiKeyQuery: [] }],
    paths,
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        Bearer: { type: 'http', scheme: 'bearer' },
        ApiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER },
        ApiKeyQuery: { type: 'apiKey', in: 'query', name: API_KEY_PARAMETER },
      },
    },
  };
}
