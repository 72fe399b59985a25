/**
 * The ingest operations of the OpenAPI document: the service's own `POST /api/ingest/{source}`
 * and Logflare's routes (CONTRACT sections 3.1 and 4.4).
 *
 * @module
 */
import { LOGFLARE_SOURCES } from '../../src/events/logflare-sources.ts';
import { SOURCES } from '../../src/events/types.ts';
import { MAX_BODY_DEPTH } from '../ingest/body.ts';
import { LOGFLARE_INGEST_PATHS } from '../routes/logflare-ingest.ts';
import {
  badRequest,
  COMMON_ERRORS,
  error,
  json,
  type OpenApiObject,
  RETRY_AFTER,
} from './answers.ts';

/** The answers of either ingest route that refuse a body whole, for what it holds or meets. */
const WHOLE_BODY_REFUSALS: Readonly<Record<string, OpenApiObject>> = {
  '413': error(
    'The body is larger than INGEST_MAX_BYTES (decompressed, when sent compressed), or holds ' +
      'more events (lines or array elements) than INGEST_MAX_ITEMS.',
  ),
  '503': error('The store or Kafka did not take the events; retry.', RETRY_AFTER),
  '507': error(
    '`insufficient_storage`: the embedded store is at its memory budget ' +
      '(MEMORY_STORE_MAX_BYTES) with its rollups alone, after dropping the oldest ring-buffer ' +
      'entries; none of the events of the body were stored.',
  ),
};

/** The ingest paths, by path. */
export function ingestPaths(): Record<string, OpenApiObject> {
  const paths: Record<string, OpenApiObject> = {};
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
        ...WHOLE_BODY_REFUSALS,
      },
    },
  };
  const logflare: OpenApiObject = {
    post: {
      summary: "Logflare's ingest route, as a self-hosted Supabase stack's Vector posts to it.",
      description: 'Each event is normalized as Logflare normalizes it (an id where it has ' +
        "none, the timestamp in microseconds, the project ref) and kept in its source's ring " +
        "buffer; Kong's (cloudflare.logs.prod) also count as edge events. Each event is kept or " +
        'refused alone.',
      tags: ['ingest'],
      parameters: [
        {
          name: 'source_name',
          in: 'query',
          description: 'The source (else the `source` parameter, else the `X-Source` header).',
          schema: { type: 'string', enum: [...LOGFLARE_SOURCES] },
        },
        { name: 'source', in: 'query', schema: { type: 'string', enum: [...LOGFLARE_SOURCES] } },
        {
          name: 'X-Source',
          in: 'header',
          schema: { type: 'string', enum: [...LOGFLARE_SOURCES] },
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/x-ndjson': { schema: { type: 'string' } },
          'application/json': {
            schema: {
              oneOf: [
                {
                  type: 'object',
                  required: ['batch'],
                  properties: { batch: { type: 'array', items: {} } },
                  description: 'Events under `batch`.',
                },
                { type: 'array', items: {}, description: 'Events.' },
                {
                  type: 'object',
                  not: { required: ['batch'], properties: { batch: { type: 'array' } } },
                  description: 'One event (an object whose `batch` is an array is a batch).',
                },
              ],
            },
          },
        },
      },
      responses: {
        '200': json('Logged', 'Every event was kept.'),
        '406': json(
          'LogflareRefusal',
          'Some events were refused (each named by position); the others were kept.',
        ),
        '400': badRequest(
          '`invalid_body`: not events (as for /api/ingest/{source}), or a `batch` that is not ' +
            'an array.',
        ),
        ...COMMON_ERRORS,
        '401': error(
          'No API key, or not one of the configured keys (checked first); or no source named, ' +
            'or an unknown one (as Logflare answers them): the message lists the sources.',
          { 'WWW-Authenticate': { schema: { type: 'string' } } },
        ),
        ...WHOLE_BODY_REFUSALS,
      },
    },
  };
  for (const path of LOGFLARE_INGEST_PATHS) paths[path] = logflare;
  return paths;
}
