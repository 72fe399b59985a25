/**
 * The OpenAPI 3.1 document of the API (`GET /openapi.json`): every route, parameter, row and
 * error, built from the endpoint records this deployment serves (so overridden ids appear).
 *
 * @module
 */
import type { EndpointRecord } from '../../src/contract/registry.ts';
import { SOURCES } from '../../src/events/types.ts';
import { API_KEY_HEADER } from '../middleware/auth.ts';
import { IGNORED_PARAMETERS_HEADER } from '../answer/query-params.ts';
import { recordRoutes } from '../records.ts';
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

/** Answers every authenticated route may give besides its own. */
const COMMON_ERRORS: Readonly<Record<string, OpenApiObject>> = {
  '401': error('No API key, or not one of the configured keys (checked first).', {
    'WWW-Authenticate': { schema: { type: 'string' } },
  }),
  '405': error('Method not allowed here; `Allow` lists the allowed ones.', ALLOW),
  '414': error('The URL is longer than 8 KiB.'),
  '500': error('Unexpected failure of the service (logged; the message is generic).'),
};

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
        schema: {
          type: 'string',
          ...(parameter.values === undefined ? {} : { examples: [...parameter.values] }),
        },
      })),
      {
        name: 'LF-ENDPOINT-REDACT-PII',
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
          'Cache-Control': {
            description: record.name === 'logs.all' ? 'no-store' : 'private, no-cache',
            schema: { type: 'string' },
          },
        },
      },
      '304': { description: '`If-None-Match` holds the current ETag: the rows did not change.' },
      '400': error(
        '`missing_parameter` or `invalid_parameter`: the message names the parameter and the ' +
          'allowed values' +
          (method === 'post' ? '; `invalid_body`: not a JSON object of strings.' : '.'),
      ),
      ...(method === 'post' ? { '413': error('The body is larger than 64 KiB.') } : {}),
      ...COMMON_ERRORS,
      '503': error('The store is not answering; retry after `Retry-After` seconds.', RETRY_AFTER),
    },
  };
}

function notFoundPath(description: string, name: string): OpenApiObject {
  return {
    get: {
      operationId: `unknown:${description}`,
      summary: description,
      tags: ['endpoints'],
      parameters: [{ name, in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '404': error('No such endpoint.'), ...COMMON_ERRORS },
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
      responses: { ...responses, '405': COMMON_ERRORS['405'], '500': COMMON_ERRORS['500'] },
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
      responses: { '200': json('EndpointList', 'The records.'), ...COMMON_ERRORS },
    },
  };
  paths['/api/endpoints/{name}'] = notFoundPath('unknown endpoint name', 'name');
  paths['/api/endpoints/query/{id}'] = notFoundPath('unknown endpoint name or id', 'id');
  paths['/endpoints/query/{id}'] = notFoundPath('unknown endpoint name or id (older path)', 'id');
  paths['/api/endpoints/query/name/{name}'] = notFoundPath(
    'unknown endpoint name (older path)',
    'name',
  );
  paths['/api/ingest/{source}'] = {
    post: {
      operationId: 'ingest',
      summary: 'Ingest events of one source: NDJSON (one event per line) or a JSON array.',
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
          'application/json': { schema: { type: 'array', items: { type: 'object' } } },
        },
      },
      responses: {
        '202': json(
          'IngestResult',
          'Accepted and rejected counts, the first rejections explained.',
        ),
        '400': error('`invalid_body`: empty, not UTF-8, or neither NDJSON nor a JSON array.'),
        ...COMMON_ERRORS,
        '404': error('Unknown source.'),
        '413': error('The body is larger than the configured limit (INGEST_MAX_BYTES).'),
        '503': error('The store or Kafka did not take the events; retry.', RETRY_AFTER),
      },
    },
  };
  paths['/openapi.json'] = publicGet('openapi', 'This document.', {
    '200': {
      description: 'OpenAPI 3.1',
      content: { 'application/json': { schema: { type: 'object' } } },
    },
  });
  paths['/health'] = publicGet('health', "The process is up (the reference system's path).", {
    '200': json('Health', 'Up.'),
  });
  paths['/healthz'] = publicGet('healthz', 'The process is up.', {
    '200': json('Health', 'Up.'),
  });
  paths['/readyz'] = publicGet('readyz', 'The store answers.', {
    '200': json('Ready', 'Ready.'),
    '503': error('The store is not answering.', RETRY_AFTER),
  });
  paths['/metrics'] = publicGet('metrics', 'Prometheus metrics (text exposition format).', {
    '200': {
      description: 'Request counts and latency by endpoint and status; ingested events.',
      content: { 'text/plain': { schema: { type: 'string' } } },
    },
  });
  return {
    openapi: '3.1.0',
    info: {
      title: 'streaming-endpoints',
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
        ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      },
    },
  };
}
