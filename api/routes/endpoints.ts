/**
 * The endpoint routes: `GET /api/endpoints/query/{id-or-name}`, `GET /api/endpoints/{name}` and
 * the listing `GET /api/endpoints`. Answers carry an entity tag (`If-None-Match` -> 304);
 * `logs.all` is `no-store`, the others `private, no-cache` (any stored copy is revalidated,
 * and no shared cache keeps an answer meant for one key holder).
 *
 * @module
 */
import type { Context, Hono } from 'hono';
import type { EndpointRecord } from '../../src/contract/registry.ts';
import { UUID } from '../../src/text/uuid.ts';
import { type Answerer, TRUNCATED_HEADER } from '../answer/answer.ts';
import {
  effectiveParams,
  IGNORED_PARAMETERS_HEADER,
  MAX_PARAMETER_BODY_BYTES,
  queryParams,
  REDACT_PII_HEADER,
} from '../answer/query-params.ts';
import { guardStore } from '../deadline.ts';
import type { StoreCalls } from '../store-calls.ts';
import { readBody } from '../ingest/body.ts';
import { ignoredQueryParameters } from '../../src/contract/params/common.ts';
import type { ApiEnv } from '../context.ts';
import { HttpError, JSON_HEADERS, methodNotAllowed } from '../errors.ts';
import { ifNoneMatchHits } from '../middleware/etag.ts';
import { chunkedBody } from '../answer/chunked-body.ts';
import { jsonResponse } from '../json.ts';
import { listedRecord } from '../records.ts';
import { asksLive, liveResponse, type LiveRouteDeps } from '../live/live-route.ts';
import { ANSWER_CORS_HEADERS, carryingCors } from '../middleware/cors.ts';
import type { SandboxedAnswerer } from '../answer/sandboxed-sql.ts';

/** What the endpoint routes need. */
export interface EndpointRoutesDeps {
  readonly records: readonly EndpointRecord[];
  readonly answer: Answerer;
  /** Longest wait for the store, in ms. */
  readonly storeTimeoutMs: number;
  /** Told of each read's outcome: where a failure's cause goes. */
  readonly storeCalls: StoreCalls;
  /** The live form of a `GET` (`Accept: text/event-stream`); null: off. */
  readonly live: LiveRouteDeps | null;
  /** `logs.all` with a caller's `sql` (`LOGS_ALL_SQL=sandboxed`); null: `sql` is ignored. */
  readonly sandboxed: SandboxedAnswerer | null;
}

const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'];
const QUERY_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'];

function cacheControl(record: EndpointRecord): string {
  return record.cacheSeconds === 0 ? 'no-store' : 'private, no-cache';
}

function notFound(given: string, byId: boolean): HttpError {
  const hint = !byId && UUID.test(given) ? ` (an id goes under /api/endpoints/query/${given})` : '';
  return new HttpError(
    'not_found',
    `no endpoint ${byId ? 'named or with id' : 'named'} ${
      JSON.stringify(given.slice(0, 100))
    }${hint}: GET /api/endpoints lists them`,
  );
}

/** `true` or `false` (any letter case) from {@link REDACT_PII_HEADER}; anything else: the record's. */
function redactPiiHeader(c: Context<ApiEnv>): boolean | undefined {
  const value = c.req.header(REDACT_PII_HEADER)?.trim().toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** Registers the endpoint routes on `app`. */
export function registerEndpointRoutes(app: Hono<ApiEnv>, deps: EndpointRoutesDeps): void {
  const byName = new Map<string, EndpointRecord>(
    deps.records.map((record) => [record.name, record]),
  );
  const byId = new Map<string, EndpointRecord>(deps.records.map((record) => [record.id, record]));

  const serve = async (c: Context<ApiEnv>, record: EndpointRecord): Promise<Response> => {
    c.set('endpoint', record.name);
    const body = c.req.method === 'POST'
      ? new TextDecoder().decode(await readBody(c.req.raw, MAX_PARAMETER_BODY_BYTES))
      : null;
    const params = effectiveParams(queryParams(c.req.url), body);
    const redactPii = redactPiiHeader(c) ?? record.redactPii;
    const sandboxed = record.name === 'logs.all'
      ? deps.sandboxed?.(params, redactPii, c.get('caller')) ?? null
      : null;
    // A sandboxed query guards its own store read; the engine's time limit bounds the rest.
    const computed = sandboxed !== null ? await sandboxed : await guardStore(
      deps.answer(record, params, { redactPii, matchShare: c.get('matchShare') }),
      deps.storeTimeoutMs,
      deps.storeCalls,
    );
    if (!computed.ok) throw new HttpError(computed.error.code, computed.error.message);
    if (deps.live !== null && sandboxed === null && asksLive(c)) {
      return liveResponse(c, deps.live, record, params, redactPii, computed);
    }
    const ignored = ignoredQueryParameters(params).filter((name) =>
      sandboxed === null || name !== 'sql'
    );
    const { truncated } = computed;
    const headers: Record<string, string> = {
      ...ANSWER_CORS_HEADERS,
      ...JSON_HEADERS,
      ETag: computed.etag,
      'Cache-Control': cacheControl(record),
      ...(ignored.length === 0 ? {} : { [IGNORED_PARAMETERS_HEADER]: ignored.join(', ') }),
      ...(truncated === null ? {} : {
        [TRUNCATED_HEADER]: `rows=${truncated.rows}; max-bytes=${truncated.maxBytes}`,
      }),
    };
    if (ifNoneMatchHits(c.req.header('If-None-Match') ?? null, computed.etag)) {
      return carryingCors(c, new Response(null, { status: 304, headers }));
    }
    headers['Content-Length'] = String(computed.body.byteLength);
    return carryingCors(c, new Response(chunkedBody(computed.body), { status: 200, headers }));
  };

  app.get('/api/endpoints', (c) => {
    c.set('endpoint', 'list');
    return jsonResponse({ result: deps.records.map(listedRecord) }, 200, {
      'Cache-Control': 'private, no-cache',
    });
  });
  const byReference = (c: Context<ApiEnv>) => {
    const ref = c.req.param('ref') ?? '';
    const record = byName.get(ref) ?? byId.get(ref.toLowerCase());
    if (record === undefined) throw notFound(ref, true);
    return serve(c, record);
  };
  const byNameOnly = (c: Context<ApiEnv>) => {
    const name = c.req.param('name') ?? '';
    const record = byName.get(name);
    if (record === undefined) throw notFound(name, false);
    return serve(c, record);
  };
  // The reference system's paths: the current one (GET and POST), and its older GET forms.
  app.get('/api/endpoints/query/name/:name', byNameOnly);
  app.get('/api/endpoints/query/:ref', byReference);
  app.post('/api/endpoints/query/:ref', byReference);
  app.get('/endpoints/query/:ref', byReference);
  app.get('/api/endpoints/:name', byNameOnly);
  const allowed: [string, readonly string[]][] = [
    ['/api/endpoints', READ_METHODS],
    ['/api/endpoints/query/name/:name', READ_METHODS],
    ['/api/endpoints/query/:ref', QUERY_METHODS],
    ['/endpoints/query/:ref', READ_METHODS],
    ['/api/endpoints/:name', READ_METHODS],
  ];
  for (const [path, methods] of allowed) {
    app.all(path, (c) => {
      c.set('endpoint', 'method_not_allowed');
      throw methodNotAllowed(c.req.method, methods);
    });
  }
}
