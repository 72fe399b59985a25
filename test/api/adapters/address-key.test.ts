/**
 * The per-address connection limit counts an IPv4 client by its address and an IPv6 client by
 * its /64, however the address is written.
 */
import { describe, expect, test } from 'vitest';
import { addressKey } from '../../../api/adapters/address-key.ts';

describe('addressKey', () => {
  test.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['2001:db8:0:1::42', '2001:db8:0:1::/64'],
    ['2001:0db8:0000:0001:ffff:ffff:ffff:ffff', '2001:db8:0:1::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s counts as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
