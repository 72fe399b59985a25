/**
 * The per-request values the API's middleware and routes share through Hono's context.
 *
 * @module
 */

/** Hono environment of the API. */
export interface ApiEnv {
  readonly Variables: {
    /** The endpoint or route name a request is counted under in the metrics. */
    endpoint: string;
    /**
     * The position of the request's API key among the configured ones (see `auth.ts`); absent on
     * the public paths.
     */
    keyIndex: number;
  };
}
