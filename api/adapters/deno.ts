/**
 * The Deno adapter: the fetch handler on `Deno.serve`. Only the few members of the `Deno`
 * namespace used here are declared, so the type checker needs no Deno types.
 *
 * `Deno.serve` takes no request timeout, header timeout or connection cap, and hands the handler
 * requests, not connections. So of `options.limits` only `writeTimeoutMs` applies here (the body
 * of a large answer is cut when the client stops reading it, `unread-cut.ts`), and a request
 * without a valid `Host` is answered 400 by the adapter; connections that send nothing, the caps
 * and what Deno's own parser refuses (a bare 400) are Deno's (documented in docs/API.md; put a
 * proxy with such limits in front of a Deno deployment exposed to untrusted clients). Requests are
 * handled `MAX_HANDLING` at a time, as on Node (`request-turns.ts`).
 *
 * @module
 */
import { errorResponse, INTERNAL_MESSAGE } from '../errors.ts';
import { RequestTurns } from './request-turns.ts';
import { hostProblem } from './host-header.ts';
import type { Refusal } from '../refusals.ts';
import { baseUrl, DEFAULT_SERVER_LIMITS, type Serve } from './serve.ts';
import { ClientNotReading, cutWhenUnread } from './unread-cut.ts';

interface DenoServer {
  readonly addr: { readonly hostname: string; readonly port: number };
  shutdown(): Promise<void>;
}

/** `Deno.ServeHandlerInfo`: `hostname` only on TCP (a Unix socket has a path instead). */
interface DenoHandlerInfo {
  readonly remoteAddr: { readonly hostname?: string };
}

interface DenoNamespace {
  serve(
    options: {
      hostname: string;
      port: number;
      onListen?: () => void;
      onError?: (error: unknown) => Response;
    },
    handler: (request: Request, info: DenoHandlerInfo) => Promise<Response>,
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
 * const served = await serveDeno(api.fetch, { hostname: '127.0.0.1', port: 0, logger });
 * ```
 */
export const serveDeno: Serve = (fetch, options) => {
  const writeTimeoutMs = options.limits?.writeTimeoutMs ?? DEFAULT_SERVER_LIMITS.writeTimeoutMs;
  const onRefusal = options.onRefusal ?? ((_reason: Refusal) => {});
  const turns = options.turns ?? new RequestTurns({ nowMs: () => performance.now() });
  const respond = async (request: Request, info: DenoHandlerInfo): Promise<Response> => {
    const problem = hostProblem(request.headers.get('Host'));
    if (problem !== null) {
      onRefusal('bad_request');
      return errorResponse('bad_request', problem, { Connection: 'close' });
    }
    const answer = await fetch(request, { remoteAddress: info.remoteAddr.hostname ?? null });
    return cutWhenUnread(answer, writeTimeoutMs, () => onRefusal('slow_reader'));
  };
  // A request whose client left while it waited is passed over: its answer would go nowhere.
  const handler = (request: Request, info: DenoHandlerInfo): Promise<Response> =>
    new Promise((resolve) =>
      turns.admit({
        handle: () => {
          const answered = respond(request, info);
          resolve(answered);
          return answered;
        },
        gone: () => request.signal.aborted,
        passOver: () => resolve(new Response(null, { status: 499 })),
      })
    );
  const server = deno().serve(
    // onListen given: Deno would otherwise print its own "Listening on" line.
    {
      hostname: options.hostname,
      port: options.port,
      onListen: () => {},
      // Deno hands a failed body here too. A cut body is counted and logged sparingly by
      // `onRefusal`; anything else is logged whole.
      onError: (error) => {
        if (!(error instanceof ClientNotReading)) {
          options.logger.error({ err: error }, 'a request failed in Deno.serve');
        }
        return errorResponse('internal', INTERNAL_MESSAGE);
      },
    },
    handler,
  );
  return Promise.resolve({
    url: baseUrl(options.hostname, server.addr.port),
    close: () => server.shutdown(),
  });
};
