/**
 * Which client an address stands for, one rule for the per-address connection limit (the
 * adapters) and the per-address rate limit (the app): an IPv4 address as it is, an IPv6 address
 * by its /64 prefix. One subscriber usually holds a whole /64 and can pick a fresh address for
 * every connection, so counting single IPv6 addresses would limit nothing. An IPv4 address mapped
 * into IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket reports IPv4 peers, in any spelling) is
 * the IPv4 client it stands for, and the port some proxies append to the address they pass on
 * (`192.0.2.1:51234`, `[2001:db8::1]:443`) is dropped, so that one client on many ports is one.
 *
 * @module
 */

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
/** `[v6]` or `[v6]:port`, as a URL authority writes an IPv6 address. */
const BRACKETED = /^\[([^\]]*)\](?::\d{1,5})?$/;
const HEXTET = /^[0-9a-f]{1,4}$/;

/** `text` without the port a proxy may have appended (an IPv6 address then is bracketed). */
function withoutPort(text: string): string {
  const bracketed = BRACKETED.exec(text)?.[1];
  if (bracketed !== undefined) return bracketed;
  return IPV4_WITH_PORT.exec(text)?.[1] ?? text;
}

/** The 16-bit groups written in `part` (an IPv4 address in the last place is two), or null. */
function groupsOf(part: string, last: boolean): number[] | null {
  if (part === '') return [];
  const written = part.split(':');
  const groups: number[] = [];
  for (const [index, group] of written.entries()) {
    if (last && index === written.length - 1 && IPV4.test(group)) {
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      if ([a, b, c, d].some((octet) => octet > 255)) return null;
      groups.push(a * 256 + b, c * 256 + d);
    } else if (HEXTET.test(group)) {
      groups.push(Number.parseInt(group, 16));
    } else {
      return null;
    }
  }
  return groups;
}

/** The eight 16-bit groups of an IPv6 address, or null when `text` is not one. */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const [head = '', tail] = halves;
  const left = groupsOf(head, tail === undefined);
  const right = tail === undefined ? [] : groupsOf(tail, true);
  if (left === null || right === null) return null;
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  return [...left, ...Array.from({ length: missing }, () => 0), ...right];
}

/**
 * The client `address` stands for: the name it is counted and limited under. Text that is not
 * an address is returned as it is (its own client: a proxy's garbage shares no one's bucket).
 *
 * @example
 * ```ts
 * addressPrefix('198.51.100.7'); // '198.51.100.7'
 * addressPrefix('198.51.100.7:51234'); // '198.51.100.7'
 * addressPrefix('::ffff:198.51.100.7'); // '198.51.100.7'
 * addressPrefix('[2001:DB8:0:1:aaaa::7]:443'); // '2001:db8:0:1::/64'
 * ```
 */
export function addressPrefix(address: string): string {
  const text = withoutPort(address.trim().toLowerCase());
  if (!text.includes(':')) return IPV4.test(text) ? text : address;
  const groups = ipv6Groups(text.split('%')[0] ?? '');
  if (groups === null) return address;
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  if ([g0, g1, g2, g3, g4].every((group) => group === 0) && g5 === 0xffff) {
    return [g6 >> 8, g6 & 255, g7 >> 8, g7 & 255].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}
