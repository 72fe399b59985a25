/**
 * `POST /api/ingest/{source}`: events of one source (NDJSON, a JSON array or one JSON object),
 * validated as the consumers validate them, handed to the ingest sink; answered 202 with the
 * counts.
 *
 * @module
 */
import type { Hono } from 'hono';
import { type Source, SOURCES } from '../../src/events/types.ts';
import type { ApiEnv } from '../context.ts';
import { HttpError, methodNotAllowed } from '../errors.ts';
import { MAX_BODY_DEPTH, readBody, splitBody } from '../ingest/body.ts';
import { callerKey, deliver, type DeliverDeps } from '../ingest/deliver.ts';
import { validateItems } from '../ingest/validate.ts';
import { jsonResponse } from '../json.ts';

/** What the ingest route needs. */
export interface IngestRouteDeps extends DeliverDeps {
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
  readonly maxBytes: number;
  /** Most events one body may hold. */
  readonly maxItems: number;
}

function isSource(value: string): value is Source {
  return (SOURCES as readonly string[]).includes(value);
}

/** Registers the ingest route on `app`. */
export function registerIngestRoute(app: Hono<ApiEnv>, deps: IngestRouteDeps): void {
  app.post('/api/ingest/:source', async (c) => {
    c.set('endpoint', 'ingest');
    const source = c.req.param('source');
    if (!isSource(source)) {
      throw new HttpError(
        'not_found',
        `unknown source ${JSON.stringify(source.slice(0, 100))}: one of ${SOURCES.join(', ')}`,
      );
    }
    const items = splitBody(await readBody(c.req.raw, deps.maxBytes), {
      maxItems: deps.maxItems,
      maxDepth: MAX_BODY_DEPTH,
    });
    const validated = validateItems(items, source, {
      nowUs: deps.nowUs(),
      maxFutureSkewUs: deps.maxFutureSkewUs,
    });
    const delivered = await deliver(deps, source, validated, callerKey(c.get('caller')));
    return jsonResponse(delivered, 202);
  });
  app.all('/api/ingest/:source', (c) => {
    c.set('endpoint', 'method_not_allowed');
    throw methodNotAllowed(c.req.method, ['POST', 'OPTIONS']);
  });
}
