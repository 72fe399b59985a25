/**
 * The per-request values the API's middleware and routes share through Hono's context.
 *
 * @module
 */

import type { MatchShare } from './answer/match-gate.ts';
import type { Connection } from './connection.ts';

/** Hono environment of the API. */
export interface ApiEnv {
  /** The connection the runtime adapter hands beside the request; absent when called directly. */
  readonly Bindings: { readonly connection?: Connection };
  readonly Variables: {
    /** The endpoint or route name a request is counted under in the metrics. */
    endpoint: string;
    /** The position of the configured API key the request presents; null: none valid. */
    caller: number | null;
    /** The caller's share of costly pattern matching; absent when matching is not limited. */
    matchShare: MatchShare | undefined;
    /** The response that carries the answers' CORS headers itself (`carryingCors`). */
    corsCarriedBy: Response | undefined;
  };
}
