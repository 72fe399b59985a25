/**
 * The `Host` header a request must carry (RFC 9112, 3.2): present, and a host name or address
 * with an optional port. Node's listener checks the form itself; on Deno the adapter does, since
 * `Deno.serve` hands on a request without `Host` (naming it `localhost`) or with `Host: a b`.
 *
 * @module
 */

/** What a request without `Host` is told. */
export const NO_HOST_MESSAGE = 'the request has no Host header, which HTTP/1.1 requires: add one';

/** A registered name (RFC 3986 reg-name) or a bracketed IPv6 literal, then an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{1,5})?$/;

/**
 * Why `host` (the header's value, null when absent) is not acceptable, or null when it is.
 *
 * @example
 * ```ts
 * hostProblem('api.example.com:8080'); // null
 * hostProblem('a b'); // 'the Host header "a b" is not a host name …'
 * ```
 */
export function hostProblem(host: string | null): string | null {
  if (host === null) return NO_HOST_MESSAGE;
  if (HOST.test(host)) return null;
  return `the Host header ${JSON.stringify(host.slice(0, 100))} is not a host name or address ` +
    'with an optional port: send the host the request is for';
}
