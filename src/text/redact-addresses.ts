/**
 * PII redaction of answers (CONTRACT section 4, `LF-ENDPOINT-REDACT-PII`): every IPv4 and IPv6
 * address inside any string of a JSON value is replaced by `REDACTED`. The patterns run on
 * RE2 (re2js), so the time taken is linear in the length of the text whatever it holds: a
 * caller cannot make redaction slow by what the events carry.
 *
 * @module
 */
import { RE2JS } from 're2js';

/** What an address becomes. */
export const REDACTED = 'REDACTED';

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `(?:${OCTET}\\.){3}${OCTET}`;
const H = '[0-9A-Fa-f]{1,4}';
/** Every RFC 4291 text form: full, `::`-compressed, and with a trailing IPv4 part. */
const IPV6 = [
  `(?:${H}:){7}${H}`,
  `(?:${H}:){1,4}:${IPV4}`,
  `::(?:[Ff]{4}(?::0{1,4})?:)?${IPV4}`,
  `(?:${H}:){1,6}:${H}`,
  `(?:${H}:){1,5}(?::${H}){1,2}`,
  `(?:${H}:){1,4}(?::${H}){1,3}`,
  `(?:${H}:){1,3}(?::${H}){1,4}`,
  `(?:${H}:){1,2}(?::${H}){1,5}`,
  `${H}:(?::${H}){1,6}`,
  `(?:${H}:){1,7}:`,
  `:(?::${H}){1,7}`,
  '::',
].join('|');

// Leftmost-longest: of the forms that match where an address starts, the longest wins (so a
// full IPv6 address is not cut at its first `::` form, and an IPv4-suffixed IPv6 address is
// one). Word boundaries keep the digits of longer numbers out of an IPv4 match.
const ADDRESS = RE2JS.compile(`(?:${IPV6})|\\b${IPV4}\\b`, RE2JS.LONGEST_MATCH);

/**
 * `text` with every IPv4 and IPv6 address replaced by {@link REDACTED}.
 *
 * @example
 * ```ts
 * redactText('GET | 200 | 203.0.113.7 | /rest'); // 'GET | 200 | REDACTED | /rest'
 * redactText('from 2001:db8::1'); // 'from REDACTED'
 * ```
 */
export function redactText(text: string): string {
  // A cheap test first: most strings hold neither a dot-quad nor a colon.
  if (!text.includes(':') && !text.includes('.')) return text;
  return ADDRESS.matcher(text).replaceAll(REDACTED);
}

/**
 * A copy of `value` with every string redacted by {@link redactText}, at any depth (object keys
 * are kept as they are). The shape is unchanged, so the copy has the type of the original.
 *
 * @example
 * ```ts
 * redactAddresses({ ip: '10.0.0.1', list: ['::1'] }); // { ip: 'REDACTED', list: ['REDACTED'] }
 * ```
 */
export function redactAddresses<T>(value: T): T {
  // Only string contents change, never the structure: the copy is a T.
  return redact(value) as T;
}

function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(redact);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redact(item);
  return copy;
}
