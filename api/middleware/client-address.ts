/**
 * The address a request without a valid key is rate-limited by, read from where the
 * configuration says (`RATE_LIMIT_ADDRESS_FROM`): the connection's peer, or the header a trusted
 * proxy in front sets. A proxy appends the address it saw to the right of what the client sent,
 * so the last entry is the one to trust; the entries to its left are the client's to write.
 *
 * @module
 */
import type { AddressSource } from '../../src/config.ts';
import type { Connection } from '../connection.ts';

/**
 * The client address of a request, or null when none is to be limited: per-address limiting
 * off, or no address known (a request handed to `fetch` without its connection). A
 * configured header that is absent falls back to the peer address: such a request did not come
 * through the proxy.
 *
 * @example
 * ```ts
 * const from = { kind: 'header', name: 'X-Forwarded-For' } as const;
 * const request = new Request('http://x/', { headers: { 'X-Forwarded-For': 'a, 198.51.100.7' } });
 * clientAddress(request, undefined, from);
 * // '198.51.100.7'
 * ```
 */
export function clientAddress(
  request: Request,
  connection: Connection | undefined,
  from: AddressSource,
): string | null {
  if (from.kind === 'off') return null;
  if (from.kind === 'header') {
    const value = request.headers.get(from.name);
    const last = value?.split(',').map((entry) => entry.trim()).findLast((entry) => entry !== '');
    if (last !== undefined) return last;
  }
  return connection?.remoteAddress ?? null;
}
