/**
 * Logflare's ingest routes, as a self-hosted Supabase stack's Vector posts to them (CONTRACT
 * section 3.1): `POST /logs`, `/api/logs` and `/api/events`, the source named by the
 * `source_name` or `source` parameter or the `X-Source` header, the key in any of the API's three
 * forms (checked before any route). Each event is normalized (`normalize.ts`) and validated
 * alone: the valid ones are kept whatever the others are, and the answer is Logflare's, `200
 * {"message":"Logged!"}` when every event was kept, else `406` naming each refused event by its
 * position (Vector does not send a 4xx again: what was kept is kept once). A body refused whole
 * (too large, not events, the store full) is not kept at all, one answered 503 (the sink past its
 * deadline) maybe in part, and the answer says whether to send it again.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { isLogflareSource, LOGFLARE_SOURCES } from '../../src/events/logflare-sources.ts';
import { parseSourceLog } from '../../src/events/source-log.ts';
import type { LogflareSource } from '../../src/events/logflare-sources.ts';
import type { ApiEnv } from '../context.ts';
import { HttpError, methodNotAllowed } from '../errors.ts';
import { MAX_BODY_DEPTH, readBody } from '../ingest/body.ts';
import { callerKey, deliver, type DeliverDeps, type Delivered } from '../ingest/deliver.ts';
import { type Validated, ValidationOutcome } from '../ingest/validate.ts';
import { jsonResponse } from '../json.ts';
import { postedItems } from '../logflare/items.ts';
import { normalizeEvent } from '../logflare/normalize.ts';

/** The paths Logflare takes events on. */
export const LOGFLARE_INGEST_PATHS = ['/logs', '/api/logs', '/api/events'] as const;

/** What Logflare answers when every event was kept. */
export const LOGGED = { message: 'Logged!' } as const;

/** What the Logflare ingest routes need. */
export interface LogflareIngestDeps extends DeliverDeps {
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
  readonly maxBytes: number;
  /** Most events one body may hold. */
  readonly maxItems: number;
  /** The project ref of events that name none or `default`. */
  readonly projectRef: string;
}

/**
 * The source a request names, by Logflare's precedence; 401 when it names none, or none known,
 * as Logflare answers a source the key cannot write to (Vector drops a 4xx batch, so the status
 * matters more than the words; the message names the sources).
 */
export function requestedSource(request: Request): LogflareSource {
  const query = new URL(request.url).searchParams;
  const name = query.get('source_name') ?? query.get('source') ?? request.headers.get('X-Source');
  const known = `one of ${LOGFLARE_SOURCES.join(', ')}`;
  if (name === null || name === '') {
    throw new HttpError(
      'unauthorized',
      `no source named: name it with the source_name parameter (or source, or the X-Source ` +
        `header), ${known}`,
    );
  }
  if (!isLogflareSource(name)) {
    throw new HttpError(
      'unauthorized',
      `unknown source ${JSON.stringify(name.slice(0, 100))}: the key can write to ${known}`,
    );
  }
  return name;
}

/** Normalizes and validates each posted event of `source`. */
function validatePosted(
  bytes: Uint8Array,
  source: LogflareSource,
  deps: LogflareIngestDeps,
): Validated {
  const nowUs = deps.nowUs();
  const outcome = new ValidationOutcome();
  for (const item of postedItems(bytes, { maxItems: deps.maxItems, maxDepth: MAX_BODY_DEPTH })) {
    if (!item.ok) {
      outcome.refuse(item.line, item.reason);
      continue;
    }
    const normalized = normalizeEvent(item.value, {
      nowUs,
      projectRef: deps.projectRef,
      newId: randomUUID,
    });
    if (!normalized.ok) {
      outcome.refuse(item.line, normalized.reason);
      continue;
    }
    const text = JSON.stringify(normalized.event);
    const result = parseSourceLog(text, source, { nowUs, maxFutureSkewUs: deps.maxFutureSkewUs });
    if (result.ok) outcome.accept({ event: result.event, text, line: item.line });
    else outcome.refuse(item.line, result.rejection.reason);
  }
  return outcome.validated();
}

/** Logflare's answer: 200 when every event was kept, else 406 naming the refused ones. */
function answer(delivered: Delivered): Response {
  if (delivered.rejected === 0) return jsonResponse(LOGGED, 200);
  return jsonResponse({
    message: delivered.errors.map(({ line, reason }) => `event ${line}: ${reason}`),
    ...delivered,
  }, 406);
}

/** Registers Logflare's ingest routes on `app`. */
export function registerLogflareIngestRoutes(app: Hono<ApiEnv>, deps: LogflareIngestDeps): void {
  for (const path of LOGFLARE_INGEST_PATHS) {
    app.post(path, async (c) => {
      c.set('endpoint', 'logflare_ingest');
      const source = requestedSource(c.req.raw);
      const validated = validatePosted(await readBody(c.req.raw, deps.maxBytes), source, deps);
      return answer(await deliver(deps, source, validated, callerKey(c.get('caller'))));
    });
    app.all(path, (c) => {
      c.set('endpoint', 'method_not_allowed');
      throw methodNotAllowed(c.req.method, ['POST', 'OPTIONS']);
    });
  }
}
