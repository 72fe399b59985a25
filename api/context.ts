/**
 * The per-request values the API's middleware and routes share through Hono's context.
 *
 * @module
 */

import type { MatchShare } from './answer/match-gate.ts';

/** Hono environment of the API. */
export interface ApiEnv {
  /**
   * What the runtime adapter hands the handler beside the request (see
   * `adapters/peer-address.ts`); the API reads only the peer address from it.
   */
  readonly Bindings: { readonly connection?: unknown };
  readonly Variables: {
    /** The endpoint or route name a request is counted under in the metrics. */
    endpoint: string;
    /** The position of the configured API key the request presents; null: none valid. */
    caller: number | null;
    /** The caller's share of costly pattern matching; absent when matching is not limited. */
    matchShare: MatchShare | undefined;
  };
}
