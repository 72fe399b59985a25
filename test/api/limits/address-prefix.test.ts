import { expect, test } from 'vitest';
import { addressPrefix } from '../../../api/limits/address-prefix.ts';

test.each([
  ['198.51.100.7', '198.51.100.7'],
  ['::ffff:198.51.100.7', '198.51.100.7'],
  ['::FFFF:10.0.0.1', '10.0.0.1'],
  ['0:0:0:0:0:ffff:10.0.0.1', '10.0.0.1'],
  ['2001:db8:0:1:aaaa:bbbb:cccc:dddd', '2001:db8:0:1::/64'],
  ['2001:DB8:0:1::7', '2001:db8:0:1::/64'],
  ['2001:0db8:0000:0001::', '2001:db8:0:1::/64'],
  ['[2001:db8::1]', '2001:db8:0:0::/64'],
  ['fe80::1%eth0', 'fe80:0:0:0::/64'],
  ['::1', '0:0:0:0::/64'],
  ['64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
])('%s is limited as %s', (address, prefix) => {
  expect(addressPrefix(address)).toBe(prefix);
});

test.each(['not an address', '1:2:3', '2001:db8::1::2', 'gggg::1', '1:2:3:4:5:6:7:8:9'])(
  '%s, not an IPv6 address, is its own bucket',
  (text) => {
    expect(addressPrefix(text)).toBe(text);
  },
);
