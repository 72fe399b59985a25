/**
 * Which client a connection counts against under the per-address connection limit: its IPv4
 * address, or the /64 network of its IPv6 address. One IPv6 host commonly holds a whole /64 and
 * can pick a fresh address for every connection, so counting single IPv6 addresses would limit
 * nothing. An IPv4 address mapped into IPv6 (`::ffff:192.0.2.1`, as a dual-stack socket reports
 * it) is the IPv4 client it stands for.
 *
 * @module
 */

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The eight 16-bit groups of an IPv6 address, as written (leading zeros dropped). */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 address in the last place stands for two groups.
  const width = (groups: string[]) =>
    groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const missing = Math.max(0, 8 - width(left) - width(right));
  return [...left, ...Array.from({ length: missing }, () => '0'), ...right].map((group) =>
    group.includes('.') ? group : Number.parseInt(group, 16).toString(16)
  );
}

/**
 * The key a connection from `address` (a socket's `remoteAddress`) is counted under.
 *
 * @example
 * ```ts
 * addressKey('192.0.2.1'); // '192.0.2.1'
 * addressKey('::ffff:192.0.2.1'); // '192.0.2.1'
 * addressKey('2001:db8:0:1::42'); // '2001:db8:0:1::/64'
 * ```
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!address.includes(':')) return address;
  const zoneless = address.split('%')[0] ?? address;
  return `${ipv6Groups(zoneless).slice(0, 4).join(':')}::/64`;
}
