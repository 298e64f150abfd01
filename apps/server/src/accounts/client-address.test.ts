import { describe, expect, it } from 'vitest';
import { clientAddressKey } from './client-address.js';

describe('clientAddressKey', () => {
  it.each([
    ['an IPv4 address', '198.51.100.7', '198.51.100.7'],
    ['an IPv4-mapped IPv6 address', '::ffff:198.51.100.7', '198.51.100.7'],
    ['an IPv6 address', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['another address of the same /64', '2001:db8:1:2:ffff::1', '2001:db8:1:2::/64'],
    ['an address of the next /64', '2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['IPv6 loopback', '::1', '::/64'],
    ['something that is no address', 'unknown', 'unknown'],
  ])('keys %s', (_name, ip, want) => {
    expect(clientAddressKey(ip)).toBe(want);
  });
});
