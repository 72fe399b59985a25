/**
 * The explorer: a page at `/` that draws the three endpoints as live charts, and its one data
 * route. The page and its files are public (they hold no data); what they show comes from the
 * authenticated API, called by the page with the key the user types.
 *
 * - `GET /` and `GET /explorer/...`: the page, its scripts and styles, the chart library. Every
 *   answer carries a Content-Security-Policy that allows scripts, styles and requests from this
 *   origin only: no inline script, no other host.
 * - `GET /api/explorer/projects` (key required): the projects the store has seen sending API
 *   requests in the last days (the registry of request hosts), newest first, with the time of
 *   each one's newest request: the page's project suggestions and its "newest event" age.
 *
 * @module
 */
import type { Hono } from 'hono';
import type { ApiEnv } from '../context.ts';
import type { Asset } from '../explorer/assets.ts';
import { jsonResponse } from '../json.ts';
import { methodNotAllowed } from '../errors.ts';
import { guardStore } from '../deadline.ts';
import type { StoreCalls } from '../store-calls.ts';
import { MAX_LISTED_PROJECTS, projectList } from '../explorer/projects.ts';
import type { SeenProject } from '../answer/newest-projects.ts';

/** The explorer's policy: this origin only, no inline script or style element, no framing. */
export const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** What the explorer's routes need. */
export interface ExplorerRoutesDeps {
  /** The explorer's files by URL path. */
  readonly assets: ReadonlyMap<string, Asset>;
  /** The projects seen, newest first, at most `limit`. */
  readonly projects: (limit: number) => Promise<readonly SeenProject[]>;
  /** Longest wait for the store, in ms. */
  readonly storeTimeoutMs: number;
  /** Told of each read's outcome: where a failure's cause goes. */
  readonly storeCalls: StoreCalls;
}

function assetResponse(asset: Asset): Response {
  return new Response(asset.body, {
    headers: {
      'Content-Type': asset.contentType,
      'Cache-Control': asset.cacheControl,
      'Content-Security-Policy': EXPLORER_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
  });
}

/** Registers the explorer's routes on `app`. */
export function registerExplorerRoutes(app: Hono<ApiEnv>, deps: ExplorerRoutesDeps): void {
  for (const [path, asset] of deps.assets) {
    app.get(path, (c) => {
      c.set('endpoint', 'explorer');
      return assetResponse(asset);
    });
    app.all(path, (c) => {
      c.set('endpoint', 'method_not_allowed');
      throw methodNotAllowed(c.req.method, ['GET', 'HEAD']);
    });
  }
  app.get('/api/explorer/projects', async (c) => {
    c.set('endpoint', 'explorer.projects');
    const projects = await guardStore(
      deps.projects(MAX_LISTED_PROJECTS),
      deps.storeTimeoutMs,
      deps.storeCalls,
    );
    return jsonResponse(projectList(projects), 200, { 'Cache-Control': 'no-store' });
  });
}
