/**
 * What a runtime adapter tells the API of the connection a request came on, in one shape for
 * every runtime: the adapters read Node's socket or Deno's handler info, nothing else does.
 *
 * @module
 */

/**
 * The connection of a request.
 *
 * @example
 * ```ts
 * await api.fetch(request, { remoteAddress: '198.51.100.7' });
 * ```
 */
export interface Connection {
  /** The peer's IP address as the socket reports it (`::ffff:` form included); null: unknown. */
  readonly remoteAddress: string | null;
}
