/**
 * JSON answers: `Content-Type: application/json; charset=utf-8` and `nosniff`, always.
 *
 * @module
 */
import { JSON_HEADERS } from './errors.ts';

/**
 * A JSON response.
 *
 * @example
 * ```ts
 * jsonResponse({ status: 'ok' }); // 200, application/json; charset=utf-8
 * ```
 */
export function jsonResponse(
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}
