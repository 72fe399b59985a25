/**
 * The parse of a message of any stream source: a producer source's (`parse`) or a Logflare
 * source's (`parseSourceLog`), chosen by the source its topic carries.
 *
 * @module
 */
import type { ParseOptions } from './decode.ts';
import { isLogflareSource } from './logflare-sources.ts';
import { parse } from './parse.ts';
import { parseSourceLog } from './source-log.ts';
import type { ParseResult, StreamSource } from './types.ts';

/**
 * Validates one message of `source`.
 *
 * @example
 * ```ts
 * parseStreamMessage(bytes, 'gotrue.logs.prod', { nowUs }); // a SourceLogEvent, or its rejection
 * parseStreamMessage(bytes, 'edge', { nowUs }); // as parse(bytes, 'edge', …)
 * ```
 */
export function parseStreamMessage(
  bytes: Uint8Array | string,
  source: StreamSource,
  options: ParseOptions,
): ParseResult {
  return isLogflareSource(source)
    ? parseSourceLog(bytes, source, options)
    : parse(bytes, source, options);
}
