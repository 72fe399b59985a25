/**
 * The Deno adapter: the fetch handler on `Deno.serve`. Only the few members of the `Deno`
 * namespace used here are declared, so the type checker needs no Deno types.
 *
 * `Deno.serve` takes no request timeout, header timeout or connection cap: `options.limits` are
 * not applied here, and Deno's own handling stands (documented in docs/API.md; put a proxy with
 * such limits in front of a Deno deployment exposed to untrusted clients).
 *
 * @module
 */
import { baseUrl, type Serve } from './serve.ts';

interface DenoServer {
  readonly addr: { readonly hostname: string; readonly port: number };
  shutdown(): Promise<void>;
}

interface DenoNamespace {
  serve(
    options: { hostname: string; port: number; onListen?: () => void },
    handler: (request: Request) => Promise<Response>,
  ): DenoServer;
}

function deno(): DenoNamespace {
  const namespace = (globalThis as { Deno?: DenoNamespace }).Deno;
  if (namespace === undefined) {
    throw new Error('api/adapters/deno.ts runs on Deno only; on Node use api/adapters/node.ts');
  }
  return namespace;
}

/**
 * Serves `fetch` on Deno.
 *
 * @example
 * ```ts
 * const served = await serveDeno(api.fetch, { hostname: '127.0.0.1', port: 0 });
 * ```
 */
export const serveDeno: Serve = (fetch, options) => {
  const server = deno().serve(
    // onListen given: Deno would otherwise print its own "Listening on" line.
    { hostname: options.hostname, port: options.port, onListen: () => {} },
    fetch,
  );
  return Promise.resolve({
    url: baseUrl(options.hostname, server.addr.port),
    close: () => server.shutdown(),
  });
};
