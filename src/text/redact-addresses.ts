/**
 * PII redaction of answers (`LF-ENDPOINT-REDACT-PII`, docs/API.md): every IPv4 and IPv6
 * address inside any string of a JSON value, object keys included, is replaced by `REDACTED`.
 * The patterns run on RE2 (re2js), so the time taken is linear in the length of the text
 * whatever it holds: a caller cannot make redaction slow by what the events carry.
 *
 * @module
 */
import { RE2JS } from 're2js';

/** What an address becomes. */
export const REDACTED = 'REDACTED';

// Leading zeros allowed (`010.000.000.001`): inet_aton and many log writers accept them, and
// the digits still name an address.
const OCTET = '0*(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
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
 * A copy of `value` with every string redacted by {@link redactText}, at any depth, object keys
 * included. Keys that redact to the same text are all kept: the second becomes `REDACTED (2)`,
 * the next `REDACTED (3)`, in their order (a number already taken is skipped). A `__proto__`
 * field (as `JSON.parse` makes one) stays a field. The copy has the type of the original: only
 * string contents change, and key names, which a row's type does not fix (metadata is free-form).
 *
 * @example
 * ```ts
 * redactAddresses({ ip: '10.0.0.1', list: ['::1'] }); // { ip: 'REDACTED', list: ['REDACTED'] }
 * redactAddresses({ '10.0.0.1': 1, '10.0.0.2': 2 }); // { REDACTED: 1, 'REDACTED (2)': 2 }
 * ```
 */
export function redactAddresses<T>(value: T): T {
  return redact(value) as T;
}

function redact(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(redact);
  const taken = new Set<string>();
  /** The next number to try for each redacted key text that came twice. */
  const nextNumber = new Map<string, number>();
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    const redacted = redactText(key);
    let name = redacted;
    if (taken.has(name)) {
      // Each key text's counter only grows, so every probe fails at most once per key of the
      // object: linear, whatever names the keys hold.
      let number = nextNumber.get(redacted) ?? 2;
      while (taken.has(`${redacted} (${number})`)) number += 1;
      name = `${redacted} (${number})`;
      nextNumber.set(redacted, number + 1);
    }
    taken.add(name);
    entries.push([name, redact(item)]);
  }
  // fromEntries defines fields (as JSON.parse does): an assignment of `__proto__` would set the
  // prototype instead, and the field would vanish from the answer.
  return Object.fromEntries(entries);
}
