import { describe, expect, it } from 'vitest';
import { AddressPolicy, parseCidrList } from './address-policy.js';

// This host's interfaces, as the test says they are.
const interfaces = () => ['127.0.0.1', '::1', '93.184.215.20', '2606:4700:10::5', 'fe80::5'];
const strict = new AddressPolicy([], { interfaces });
const loopbackAllowed = new AddressPolicy(['127.0.0.0/8', '::1/128', '192.0.2.0/24'], { interfaces });

describe('AddressPolicy', () => {
  it.each([
    ['93.184.215.14', undefined],
    ['8.8.8.8', undefined],
    ['172.32.0.1', undefined],
    ['2606:4700::1111', undefined],
    ['::ffff:8.8.8.8', undefined],
    ['64:ff9b::808:808', undefined], // NAT64 of 8.8.8.8
    ['2002:808:808::1', undefined], // 6to4 of 8.8.8.8
    ['0.0.0.0', /"this network"/],
    ['10.1.2.3', /private/],
    ['100.64.0.1', /shared/],
    ['127.0.0.1', /loopback/],
    ['127.9.9.9', /loopback/],
    ['169.254.169.254', /link-local/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.0.0.8', /IETF protocol/],
    ['192.0.2.1', /documentation/],
    ['192.88.99.1', /6to4 relay/],
    ['192.168.1.1', /private/],
    ['198.18.0.1', /benchmarking/],
    ['198.51.100.7', /documentation/],
    ['203.0.113.9', /documentation/],
    ['224.0.0.1', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /broadcast/],
    ['::', /unspecified/],
    ['::1', /outside the global unicast/],
    ['::127.0.0.1', /outside the global unicast/], // IPv4-compatible, deprecated
    ['::ffff:127.0.0.1', /carries 127\.0\.0\.1: .*loopback/],
    ['::ffff:10.0.0.1', /carries 10\.0\.0\.1/],
    ['64:ff9b::a00:1', /carries 10\.0\.0\.1/],
    ['64:ff9b:1::1', /outside the global unicast/],
    ['100::1', /outside the global unicast/],
    ['2001::1', /IETF protocol/], // Teredo
    ['2001:db8::1', /documentation/],
    ['3fff::1', /documentation/],
    ['2002:7f00:1::1', /carries 127\.0\.0\.1/], // 6to4 of loopback
    ['fc00::1', /outside the global unicast/],
    ['fd12:3456::1', /outside the global unicast/],
    ['fe80::1', /outside the global unicast/],
    ['ff02::1', /multicast/],
    ['93.184.215.20', /this server's own host/],
    ['::ffff:93.184.215.20', /this server's own host/],
    ['2606:4700:10::5', /this server's own host/],
    ['fe80::5', /this server's own host/],
    ['not an address', /not an IP address/],
  ])('judges %s', (address, want) => {
    const reason = strict.refusal(address);
    if (want === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(want);
  });

  it.each([
    ['127.0.0.1', undefined],
    ['::ffff:127.0.0.1', undefined],
    ['::1', undefined],
    ['192.0.2.1', undefined],
    ['::127.0.0.1', /outside the global unicast/],
    ['10.0.0.1', /private/],
    ['0.0.0.0', /never a webhook's destination/],
    ['93.184.215.20', /this server's own host/],
  ])('with 127.0.0.0/8, ::1/128 and 192.0.2.0/24 allowed, judges %s', (address, want) => {
    const reason = loopbackAllowed.refusal(address);
    if (want === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(want);
  });

  it("reads the host's interfaces at every judgement", () => {
    const own = ['127.0.0.1'];
    const policy = new AddressPolicy([], { interfaces: () => own });
    expect(policy.refusal('93.184.215.30')).toBeUndefined();
    own.push('93.184.215.30');
    expect(policy.refusal('93.184.215.30')).toMatch(/own host/);
  });
});

describe('parseCidrList', () => {
  it('reads a comma-separated list of ranges', () => {
    expect(parseCidrList(' 127.0.0.0/8, ::1/128 ,')).toEqual(['127.0.0.0/8', '::1/128']);
    expect(parseCidrList('')).toEqual([]);
  });

  it.each(['127.0.0.1', '10.0.0.0/33', 'localhost/8'])('refuses %s', (entry) => {
    expect(() => parseCidrList(entry)).toThrow(/is not a CIDR range/);
  });
});
