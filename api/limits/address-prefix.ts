/**
 * The name of the bucket a client address is limited under: an IPv4 address as it is (an
 * IPv4-mapped IPv6 address, as a dual-stack socket reports IPv4 peers, as the IPv4 address), an
 * IPv6 address by its /64 prefix. One subscriber usually holds a whole /64, so limiting each of
 * its 2^64 addresses apart would give a caller that rotates them a fresh bucket per request.
 *
 * @module
 */

const HEXTET = /^[0-9a-f]{1,4}$/;

/** The eight hextets of an IPv6 address (a trailing IPv4 part counted as two), or null. */
function hextets(text: string): string[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const split = (half: string) => (half === '' ? [] : half.split(':'));
  const head = split(halves[0] ?? '');
  const tail = halves.length === 2 ? split(halves[1] ?? '') : [];
  const last = tail.at(-1) ?? head.at(-1) ?? '';
  const width = head.length + tail.length + (last.includes('.') ? 1 : 0);
  const zeros = halves.length === 2 ? 8 - width : 0;
  if (zeros < 0 || (halves.length === 1 && width !== 8)) return null;
  return [...head, ...Array.from({ length: zeros }, () => '0'), ...tail];
}

/**
 * The bucket name of `address` (anything that is not an IPv6 address is returned as it is).
 *
 * @example
 * ```ts
 * addressPrefix('198.51.100.7'); // '198.51.100.7'
 * addressPrefix('::ffff:198.51.100.7'); // '198.51.100.7'
 * addressPrefix('2001:DB8:0:1:aaaa::7'); // '2001:db8:0:1::/64'
 * ```
 */
export function addressPrefix(address: string): string {
  const text = address.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').split('%')[0] ?? '';
  if (!text.includes(':')) return address;
  const groups = hextets(text);
  const ipv4 = groups?.at(-1);
  if (
    groups !== null && ipv4 !== undefined && ipv4.includes('.') && groups[5] === 'ffff' &&
    groups.slice(0, 5).every((group) => /^0{1,4}$/.test(group))
  ) {
    return ipv4;
  }
  const prefix = groups?.slice(0, 4);
  if (prefix === undefined || !prefix.every((group) => HEXTET.test(group))) return address;
  return `${prefix.map((group) => Number.parseInt(group, 16).toString(16)).join(':')}::/64`;
}
