/**
 * One rule names the client of an address, for the per-address connection limit and the rate
 * limit alike: an IPv4 address as it is (however an IPv6 socket or a proxy writes it), an IPv6
 * address by its /64, a proxy's port dropped; anything that is not an address stays as it is.
 */
import { describe, expect, test } from 'vitest';
import { addressPrefix } from '../../api/address-prefix.ts';

describe('addressPrefix', () => {
  test.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['0:0:0:0:0:ffff:10.0.0.1', '10.0.0.1'],
    ['::ffff:c633:6407', '198.51.100.7'],
    ['2001:db8:0:1:aaaa:bbbb:cccc:dddd', '2001:db8:0:1::/64'],
    ['2001:DB8:0:1::7', '2001:db8:0:1::/64'],
    ['2001:0db8:0000:0001::', '2001:db8:0:1::/64'],
    ['2001:0db8:0000:0001:ffff:ffff:ffff:ffff', '2001:db8:0:1::/64'],
    ['[2001:db8::1]', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
  ])('%s is the client %s', (address, prefix) => {
    expect(addressPrefix(address)).toBe(prefix);
  });

  // Some proxies append `ip:port` (Azure) or `[v6]:port`: one client on many ports is one client.
  test.each([
    ['198.51.100.7:51234', '198.51.100.7'],
    ['[2001:db8::1]:443', '2001:db8:0:0::/64'],
    ['[::ffff:198.51.100.7]:8080', '198.51.100.7'],
  ])('%s, with a port, is the client %s', (address, prefix) => {
    expect(addressPrefix(address)).toBe(prefix);
  });

  test.each([
    'not an address',
    '1:2:3',
    '2001:db8::1::2',
    'gggg::1',
    '1:2:3:4:5:6:7:8:9',
    '::ffff:1.2.3',
    'host.example:80',
  ])('%s, not an address, is its own client', (text) => {
    expect(addressPrefix(text)).toBe(text);
  });
});
