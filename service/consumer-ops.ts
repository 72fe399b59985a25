/**
 * What the `consumers` role serves on `METRICS_PORT`: `/metrics` (the consumers' lag, paused
 * partitions and dead letters, and the process's own figures), `/healthz` (503 with the reason
 * while something is wrong that waiting will not mend, such as a partition paused at a batch it
 * cannot decode; 200 naming the partitions that lost offsets to retention, if any) and `/readyz`
 * (503 with the reason while the consumers are not consuming). No API, no keys: it
 * tells nothing about the data, only offsets and counts, and listens on `HOST` like the API.
 *
 * @module
 */
import type { Registry } from 'prom-client';

/** The fetch handler of the consumers' operations port. */
export function consumerOpsHandler(
  registry: Registry,
  notReady: () => string | null,
  unhealthy: () => string | null = () => null,
  lost: () => string | null = () => null,
): (request: Request) => Promise<Response> {
  const text = (status: number, body: string, headers: Record<string, string> = {}) =>
    new Response(body, {
      status,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers },
    });
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return text(405, 'method not allowed: use GET\n', { Allow: 'GET, HEAD' });
    }
    switch (new URL(request.url).pathname) {
      case '/metrics':
        return text(200, await registry.metrics(), { 'Content-Type': registry.contentType });
      case '/healthz': {
        const reason = unhealthy();
        if (reason !== null) return text(503, `not ok: consumers: ${reason}\n`);
        // Told, not failed: a restart would not bring back what retention deleted.
        const loss = lost();
        return text(200, loss === null ? 'ok\n' : `ok; data lost: consumers: ${loss}\n`);
      }
      case '/readyz': {
        const reason = notReady();
        return reason === null
          ? text(200, 'ready\n')
          : text(503, `not ready: consumers: ${reason}\n`, { 'Retry-After': '1' });
      }
      default:
        return text(404, 'not found: this port serves /metrics, /healthz and /readyz\n');
    }
  };
}
