/**
 * The operational routes, public (no key): `/healthz` (the process answers), `/readyz` (the
 * store answers and every other part is ready; otherwise 503 naming what is not), `/metrics` (Prometheus) and `/openapi.json`. None of them reveals data: the
 * metrics carry endpoint names and status codes only, and the document is the published
 * contract.
 *
 * @module
 */
import { refusingText, writeRefusalOf } from '../../src/store/write-refusal.ts';
import type { Hono } from 'hono';
import type { RollupStore } from '../../src/store/port.ts';
import { guardStore } from '../deadline.ts';
import type { StoreCalls } from '../store-calls.ts';
import type { ApiEnv } from '../context.ts';
import { JSON_HEADERS, methodNotAllowed, unavailable } from '../errors.ts';
import { jsonResponse } from '../json.ts';
import type { ApiMetrics } from '../metrics.ts';
import type { OpenApiObject } from '../openapi/document.ts';

/**
 * Liveness probes: never rate-limited (a refused probe has an orchestrator restart a process that
 * is only busy), and they cost nothing but the answer.
 */
export const LIVENESS_PATHS: ReadonlySet<string> = new Set(['/health', '/healthz']);

/**
 * Readiness and scrapes: public but limited by address like any keyless request, since each one
 * asks the store or renders every series (a scraper or an orchestrator asks a few times a minute,
 * far below any per-address rate).
 */
const READINESS_AND_SCRAPES = ['/readyz', '/metrics'];

/** The paths that need no key. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set([
  ...LIVENESS_PATHS,
  ...READINESS_AND_SCRAPES,
  '/openapi.json',
]);

/** What the operational routes need. */
export interface OperationRoutesDeps {
  readonly store: RollupStore;
  readonly metrics: ApiMetrics;
  readonly document: OpenApiObject;
  /** Longest wait for the store's ping, in ms. */
  readonly storeTimeoutMs: number;
  /** Told of each ping's outcome: where a failure's cause goes. */
  readonly storeCalls: StoreCalls;
  /** Why parts other than the store are not ready, by part; empty when all are. */
  readonly notReady: () => Readonly<Record<string, string>>;
  /**
   * What is wrong with this process that waiting alone will not mend (`/healthz` says not ok),
   * or null: the store refusing the writes this process makes.
   */
  readonly unhealthy: () => string | null;
  /** Why answers are going stale though they are served (`/readyz` says it), or null. */
  readonly stale: () => Promise<string | null>;
}

/** `/readyz`'s answer: ready, or a 503 that names every part not ready and why. */
async function readiness(deps: OperationRoutesDeps): Promise<Response> {
  const reasons: string[] = [];
  // A Redis that refuses writes answers, and may refuse PING too (MISCONF does, so that
  // monitoring notices): that is answers going stale, not a store away.
  let refused: string | null = null;
  const ping = deps.store.ping().catch((error: unknown) => {
    const refusal = writeRefusalOf(error);
    if (refusal === null) throw error;
    refused = refusingText(refusal);
  });
  try {
    await guardStore(ping, deps.storeTimeoutMs, deps.storeCalls);
  } catch {
    reasons.push('store: not answering');
  }
  for (const [part, reason] of Object.entries(deps.notReady())) reasons.push(`${part}: ${reason}`);
  if (reasons.length > 0) throw unavailable(`not ready: ${reasons.join('; ')}`);
  const stale = refused ?? await deps.stale();
  return jsonResponse(stale === null ? { status: 'ready' } : { status: 'ready', stale }, 200, {
    'Cache-Control': 'no-store',
  });
}

/** Registers the operational routes on `app`. */
export function registerOperationRoutes(app: Hono<ApiEnv>, deps: OperationRoutesDeps): void {
  const document = JSON.stringify(deps.document);
  // `/health` is the reference system's path, `/healthz` the usual probe path: both public.
  for (const path of ['/health', '/healthz']) {
    app.get(path, (c) => {
      c.set('endpoint', 'healthz');
      const reason = deps.unhealthy();
      if (reason !== null) throw unavailable(`not ok: ${reason}`);
      return jsonResponse({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' });
    });
  }
  app.get('/readyz', async (c) => {
    c.set('endpoint', 'readyz');
    return await readiness(deps);
  });
  app.get('/metrics', async (c) => {
    c.set('endpoint', 'metrics');
    return new Response(await deps.metrics.registry.metrics(), {
      headers: { 'Content-Type': deps.metrics.registry.contentType, 'Cache-Control': 'no-store' },
    });
  });
  app.get('/openapi.json', (c) => {
    c.set('endpoint', 'openapi');
    return new Response(document, {
      headers: JSON_HEADERS,
    });
  });
  for (const path of PUBLIC_PATHS) {
    app.all(path, (c) => {
      c.set('endpoint', 'method_not_allowed');
      throw methodNotAllowed(c.req.method, ['GET', 'HEAD']);
    });
  }
}
