/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of every body the API answers: the rows of
 * each endpoint (CONTRACT section 5), the error envelope, the endpoint records and the ingest
 * answer. The tests validate every response of the end-to-end runs against them.
 *
 * @module
 */
import { ENDPOINT_NAMES, LOGS_ALL_LIMIT, MAX_ROWS } from '../../src/contract/registry.ts';
import { ERROR_STATUS } from '../errors.ts';
import { MAX_REPORTED_ERRORS } from '../ingest/validate.ts';
import { UUID_PATTERN } from '../../src/text/uuid.ts';

/** A JSON Schema object. */
export type Schema = { readonly [keyword: string]: unknown };

const TIMESTAMP: Schema = {
  type: 'integer',
  description:
    'A TIMESTAMP: microseconds since the Unix epoch (as the reference system returns it).',
  examples: [1795256100000000],
};

const DATETIME: Schema = {
  type: 'string',
  description:
    'A DATETIME: YYYY-MM-DDTHH:MM:SS in UTC, without a zone (as the reference system returns it).',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
  examples: ['2026-11-21T10:15:00'],
};

const COUNT: Schema = { type: 'integer', minimum: 0 };
const MILLISECONDS: Schema = { type: ['number', 'null'], description: 'ms; null without values' };

function object(properties: Record<string, Schema>, description?: string): Schema {
  return {
    type: 'object',
    ...(description === undefined ? {} : { description }),
    required: Object.keys(properties),
    additionalProperties: false,
    properties,
  };
}

function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

function result(row: string, maxItems: number): Schema {
  return object({ result: { type: 'array', maxItems, items: ref(row) } });
}

/** The schemas under `components.schemas`. */
export const SCHEMAS: Readonly<Record<string, Schema>> = {
  Timestamp: TIMESTAMP,
  Datetime: DATETIME,
  InvocationStatsRow: object({
    timestamp: ref('Timestamp'),
    count: COUNT,
    error_count: COUNT,
    min_execution_time: MILLISECONDS,
    max_execution_time: MILLISECONDS,
    avg_execution_time: MILLISECONDS,
    p95_execution_time: MILLISECONDS,
    p99_execution_time: MILLISECONDS,
  }, 'One bucket of functions.invocation-stats (bucket start, ascending, empty buckets included).'),
  LogRow: object({
    id: { type: 'string' },
    timestamp: ref('Timestamp'),
    event_message: { type: ['string', 'null'] },
    metadata: { type: 'array', items: { type: 'object' }, description: 'As ingested.' },
  }, 'One edge log entry of logs.all (newest first).'),
  ApiCountsRow: object({
    timestamp: ref('Datetime'),
    total_rest_requests: COUNT,
    total_storage_requests: COUNT,
    total_auth_requests: COUNT,
    total_realtime_requests: COUNT,
  }, 'One non-empty bucket of usage.api-counts (bucket start, ascending).'),
  InvocationStatsResult: result('InvocationStatsRow', MAX_ROWS),
  LogsAllResult: result('LogRow', LOGS_ALL_LIMIT),
  ApiCountsResult: result('ApiCountsRow', MAX_ROWS),
  Error: object({
    error: object({
      code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
      message: { type: 'string', minLength: 1, description: 'What happened and what to do.' },
    }),
  }),
  EndpointParameter: {
    type: 'object',
    required: ['name', 'required', 'description'],
    additionalProperties: false,
    properties: {
      name: { type: 'string' },
      required: { type: 'boolean' },
      description: { type: 'string' },
      values: { type: 'array', items: { type: 'string' } },
    },
  },
  EndpointRecord: object({
    name: { type: 'string', enum: [...ENDPOINT_NAMES] },
    id: {
      type: 'string',
      pattern: UUID_PATTERN,
    },
    description: { type: 'string' },
    max_rows: COUNT,
    cache_duration_seconds: { ...COUNT, description: 'Of the reference system; 0 = disabled.' },
    proactive_requerying_seconds: { ...COUNT, description: 'Of the reference system; 0 = none.' },
    sandboxable: { const: false },
    redact_pii: {
      type: 'boolean',
      description: 'Addresses redacted unless the LF-ENDPOINT-REDACT-PII header says otherwise.',
    },
    parameters: { type: 'array', items: ref('EndpointParameter') },
    paths: {
      type: 'array',
      items: { type: 'string' },
      description: 'The paths that answer this endpoint.',
    },
  }),
  EndpointList: object({ result: { type: 'array', items: ref('EndpointRecord') } }),
  IngestResult: object({
    accepted: COUNT,
    rejected: COUNT,
    errors: {
      type: 'array',
      maxItems: MAX_REPORTED_ERRORS,
      description: `The first ${MAX_REPORTED_ERRORS} rejected events.`,
      items: object({
        line: {
          type: 'integer',
          minimum: 1,
          description: 'NDJSON: 1-based line number; JSON array: 1-based element number.',
        },
        reason: { type: 'string' },
      }),
    },
  }),
  Logged: object({ message: { type: 'string', const: 'Logged!' } }),
  LogflareRefusal: object({
    message: {
      type: 'array',
      items: { type: 'string' },
      description: 'Each refused event (the first few): `event <position>: <reason>`.',
    },
    accepted: COUNT,
    rejected: COUNT,
    errors: {
      type: 'array',
      maxItems: MAX_REPORTED_ERRORS,
      items: object({ line: { type: 'integer', minimum: 1 }, reason: { type: 'string' } }),
    },
  }),
  ProjectList: object({
    projects: {
      type: 'array',
      description: 'Newest first.',
      items: object({
        project: { type: 'string' },
        newest_request: {
          type: 'string',
          description: 'The newest API request seen of the project (RFC 3339, UTC).',
        },
        newest_request_us: { type: 'integer', description: 'The same, in µs since the epoch.' },
      }),
    },
  }),
  Health: object({ status: { const: 'ok' } }),
  Ready: {
    type: 'object',
    required: ['status'],
    additionalProperties: false,
    properties: {
      status: { const: 'ready' },
      stale: {
        type: 'string',
        description: 'Present while answers are going stale: the store refuses writes, and why.',
      },
    },
  },
};

/** The result schema of each endpoint. */
export const RESULT_SCHEMA = {
  'functions.invocation-stats': 'InvocationStatsResult',
  'logs.all': 'LogsAllResult',
  'usage.api-counts': 'ApiCountsResult',
} as const;
