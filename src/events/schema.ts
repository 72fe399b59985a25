/**
 * The producer contract of CONTRACT section 3 as JSON Schemas, and their compiled (ajv)
 * validators. Extra fields are allowed everywhere and kept in `metadata`; every string and
 * array the service reads is bounded (see `EVENT_LIMITS`). The timestamp's form is checked by
 * `parse`, which gives a more useful reason than a schema could.
 *
 * @module
 */

import { Ajv, type ErrorObject } from 'ajv';
import type { JsonObject, Source } from './types.ts';
import { EVENT_LIMITS } from './limits.ts';

/** One entry of `metadata[].request` as validated. */
export type RawRequest = JsonObject & {
  readonly host?: string;
  readonly path?: string;
  readonly url?: string;
};

/** One entry of `metadata[].response` as validated. */
export type RawResponse = JsonObject & { readonly status_code?: number | null };

/** One entry of an `edge` event's `metadata` as validated. */
export type EdgeMetadata = JsonObject & {
  readonly request?: RawRequest[];
  readonly response?: RawResponse[];
};

/** One entry of a `function-edge` event's `metadata` as validated. */
export type FunctionEdgeMetadata = JsonObject & {
  readonly project_ref: string;
  readonly function_id?: string | null;
  readonly execution_time_ms?: number | null;
  readonly request?: RawRequest[];
  readonly response?: RawResponse[];
};

/** Fields common to both sources, as validated. */
type RawCommon = JsonObject & {
  readonly id: string;
  readonly timestamp: string | number;
  readonly event_message?: string | null;
};

/** An `edge` event that passed its schema. */
export type RawEdgeEvent = RawCommon & { readonly project: string; metadata: EdgeMetadata[] };

/** A `function-edge` event that passed its schema. */
export type RawFunctionEdgeEvent = RawCommon & { metadata: FunctionEdgeMetadata[] };

const nonEmptyString = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });

const entries = (maxItems: number, items: object) => ({ type: 'array', maxItems, items });

const response = {
  type: 'object',
  properties: {
    // 100..599 so that every status falls in one of the status classes the rollups keep.
    status_code: { type: ['integer', 'null'], minimum: 100, maximum: 599 },
  },
};

const request = {
  type: 'object',
  properties: {
    host: { type: 'string', maxLength: EVENT_LIMITS.hostLength },
    path: { type: 'string', maxLength: EVENT_LIMITS.urlLength },
    url: { type: 'string', maxLength: EVENT_LIMITS.urlLength },
  },
};

const common = {
  id: nonEmptyString(EVENT_LIMITS.idLength),
  timestamp: { type: ['string', 'number'] },
  event_message: { type: ['string', 'null'], maxLength: EVENT_LIMITS.eventMessageLength },
};

/**
 * JSON Schema of an `edge` (API gateway) event.
 *
 * @example
 * ```ts
 * EDGE_EVENT_SCHEMA.required; // ['id', 'timestamp', 'project', 'metadata']
 * ```
 */
export const EDGE_EVENT_SCHEMA = {
  $id: 'https://schemas.local/events/edge.json',
  title: 'edge event',
  type: 'object',
  required: ['id', 'timestamp', 'project', 'metadata'],
  properties: {
    ...common,
    project: nonEmptyString(EVENT_LIMITS.projectLength),
    metadata: entries(EVENT_LIMITS.metadataEntries, {
      type: 'object',
      properties: {
        request: entries(EVENT_LIMITS.requestEntries, request),
        response: entries(EVENT_LIMITS.responseEntries, response),
      },
    }),
  },
} as const;

/**
 * JSON Schema of a `function-edge` (edge-function relay) event: at least one metadata entry,
 * each naming its project in a non-empty `project_ref`.
 *
 * @example
 * ```ts
 * FUNCTION_EDGE_EVENT_SCHEMA.properties.metadata.minItems; // 1
 * ```
 */
export const FUNCTION_EDGE_EVENT_SCHEMA = {
  $id: 'https://schemas.local/events/function-edge.json',
  title: 'function-edge event',
  type: 'object',
  required: ['id', 'timestamp', 'metadata'],
  properties: {
    ...common,
    metadata: {
      ...entries(EVENT_LIMITS.metadataEntries, {
        type: 'object',
        required: ['project_ref'],
        properties: {
          project_ref: nonEmptyString(EVENT_LIMITS.projectLength),
          function_id: { type: ['string', 'null'], maxLength: EVENT_LIMITS.functionIdLength },
          execution_time_ms: {
            type: ['number', 'null'],
            minimum: 0,
            maximum: EVENT_LIMITS.maxExecutionTimeMs,
          },
          request: entries(EVENT_LIMITS.requestEntries, request),
          response: entries(EVENT_LIMITS.responseEntries, response),
        },
      }),
      minItems: 1,
    },
  },
} as const;

// `verbose` puts the offending value in each error, for reasons that say what was given.
const ajv = new Ajv({ allErrors: false, verbose: true, allowUnionTypes: true });

/** A compiled validator: a type guard whose `errors` explain the first failure. */
export interface EventValidator<T> {
  (value: unknown): value is T;
  errors?: ErrorObject[] | null;
}

/** Compiled validator of `EDGE_EVENT_SCHEMA`. */
export const validateEdgeEvent: EventValidator<RawEdgeEvent> = ajv.compile<RawEdgeEvent>(
  EDGE_EVENT_SCHEMA,
);

/** Compiled validator of `FUNCTION_EDGE_EVENT_SCHEMA`. */
export const validateFunctionEdgeEvent: EventValidator<RawFunctionEdgeEvent> = ajv.compile<
  RawFunctionEdgeEvent
>(FUNCTION_EDGE_EVENT_SCHEMA);

/**
 * The JSON Schema of a source.
 *
 * @example
 * ```ts
 * eventSchema('edge').title; // 'edge event'
 * ```
 */
export function eventSchema(
  source: Source,
): typeof EDGE_EVENT_SCHEMA | typeof FUNCTION_EDGE_EVENT_SCHEMA {
  return source === 'edge' ? EDGE_EVENT_SCHEMA : FUNCTION_EDGE_EVENT_SCHEMA;
}

/**
 * A sentence a producer can act on, for the first error of a failed validation: it names the
 * field (as a JSON pointer), what was expected and what was given.
 *
 * @example
 * ```ts
 * validateEdgeEvent({ id: 'a', timestamp: 0, metadata: [] });
 * describeSchemaError(validateEdgeEvent.errors?.[0]);
 * // 'missing required field /project'
 * ```
 */
export function describeSchemaError(error: ErrorObject | undefined): string {
  if (error === undefined) return 'does not match the event schema';
  const field = error.instancePath === '' ? 'the event' : error.instancePath;
  const params: Record<string, unknown> = error.params;
  const data: unknown = error.data;
  switch (error.keyword) {
    case 'required':
      return `missing required field ${error.instancePath}/${String(params.missingProperty)}`;
    case 'type':
      return `${field} must be ${typeNames(params.type)}: got ${describeValue(data)}`;
    case 'minLength':
      return params.limit === 1
        ? `${field} must be a non-empty string`
        : `${field} must have at least ${String(params.limit)} characters: got ${
          describeValue(data)
        }`;
    case 'maxLength':
      return `${field} must have at most ${String(params.limit)} characters: got ${
        typeof data === 'string' ? data.length : '?'
      }`;
    case 'minItems':
      return `${field} must have at least ${entryCount(params.limit)}: got ${
        Array.isArray(data) ? data.length : '?'
      }`;
    case 'maxItems':
      return `${field} must have at most ${entryCount(params.limit)}: got ${
        Array.isArray(data) ? data.length : '?'
      }`;
    case 'minimum':
    case 'maximum':
      return `${field} must be ${String(params.comparison)} ${String(params.limit)}: got ${
        describeValue(data)
      }`;
    default:
      return `${field} ${error.message ?? 'does not match the event schema'}`;
  }
}

function entryCount(limit: unknown): string {
  return limit === 1 ? '1 entry' : `${String(limit)} entries`;
}

const ARTICLE: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  object: 'an object',
  array: 'an array',
  boolean: 'a boolean',
  null: 'null',
};

function typeNames(type: unknown): string {
  const names = Array.isArray(type) ? type : String(type).split(',');
  return names.map((name) => ARTICLE[String(name)] ?? String(name)).join(' or ');
}

/**
 * A short rendering of an offending value for a rejection reason: scalars as JSON (strings cut
 * at 60 characters), containers by kind.
 *
 * @example
 * ```ts
 * describeValue('yesterday'); // '"yesterday"'
 * describeValue([1, 2]); // 'an array'
 * ```
 */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'nothing';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'string' && value.length > 60) {
    return `${JSON.stringify(value.slice(0, 60))}... (${value.length} characters)`;
  }
  return JSON.stringify(value);
}
