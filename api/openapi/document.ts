/**
 * The OpenAPI 3.1 document of the API (`GET /openapi.json`): every route, parameter, row and
 * error, built from the endpoint records this deployment serves (so overridden ids appear).
 *
 * @module
 */
import { SERVICE_NAME } from '../../src/config/defaults.ts';
import { MAX_PATTERN_LENGTH } from '../../src/contract/params/api-counts.ts';
import type { EndpointRecord, ParameterSpec } from '../../src/contract/registry.ts';
import { API_KEY_HEADER, API_KEY_PARAMETER } from '../middleware/auth.ts';
import {
  IGNORED_PARAMETERS_HEADER,
  MAX_PARAMETER_BODY_BYTES,
  REDACT_PII_HEADER,
} from '../answer/query-params.ts';
import { TRUNCATED_HEADER } from '../answer/answer.ts';
import { recordRoutes } from '../records.ts';
import { MAX_LISTED_PROJECTS } from '../explorer/projects.ts';
import { RESULT_SCHEMA, type Schema, SCHEMAS } from './schemas.ts';
import {
  badRequest,
  COMMON_ERRORS,
  error,
  json,
  type OpenApiObject,
  RATE_LIMITED,
  RETRY_AFTER,
  TRANSPORT_ERRORS,
} from './answers.ts';
import { ingestPaths } from './ingest-paths.ts';

export type { OpenApiObject } from './answers.ts';

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

/**
 * The 200 of an endpoint operation: the rows as JSON and, on `GET`, the live form of the answer
 * (`Accept: text/event-stream`, api/live/): the answer now, then each new one as it changes.
 */
function answerContent(record: EndpointRecord, method: string): OpenApiObject {
  const rows = json(RESULT_SCHEMA[record.name], 'The rows.');
  if (method !== 'get') return rows;
  const content = rows['content'] as OpenApiObject;
  return {
    description: 'The rows. Asked with `Accept: text/event-stream`, a live answer: server-sent ' +
      'events, each the whole JSON answer (the same bytes as this GET at that moment) on `data:` ' +
      'lines with its ETag as `id`; the first is the answer now, each later one sent when the ' +
      'answer changes (after a commit of the project, or as the window slides); a comment every ' +
      'LIVE_HEARTBEAT_MS; before the first, a `retry` field of 1 to 10 s (when to reconnect). ' +
      '429 beyond LIVE_MAX_STREAMS, _PER_KEY or _PER_ADDRESS. An ' +
      '`EventSource` passes its key as `api_key`.',
    content: {
      ...content,
      'text/event-stream': {
        schema: {
          type: 'string',
          description: 'Server-sent events: `retry: <ms>` first, then each `id: <ETag>` and ' +
            '`data: <answer>`.',
        },
      },
    },
  };
}

function endpointOperation(record: EndpointRecord, path: string, method: string): OpenApiObject {
  return {
    operationId: `${record.name}:${method}:${path}`,
    summary: record.name,
    description: `${record.description} At most ${record.maxRows} rows. ` +
      'Unknown parameters are ignored, a repeated one takes its last value; `sql` and `lql` ' +
      `are ignored (sandboxing is disabled) and named in the ${IGNORED_PARAMETERS_HEADER} header, ` +
      "except `sql` of logs.all on a service run with LOGS_ALL_SQL=sandboxed (docs/API.md, Studio's " +
      'SQL): its rows are then the columns the SQL selects.',
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
        ...answerContent(record, method),
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
  Object.assign(paths, ingestPaths());
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
