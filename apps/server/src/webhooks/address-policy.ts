// Which addresses a webhook may reach (openapi.yaml, "Webhooks", Private addresses): never loopback,
// private, link-local, unique-local, shared or unspecified ones, unless the operator allows them
// (PDN_WEBHOOK_ALLOW_PRIVATE). Node's BlockList parses and matches the addresses, IPv4-mapped IPv6
// included, so the check reads them as the socket will (STYLE.md 24). `guardedLookup` applies the rule
// when a connection resolves its host, on the very addresses it connects to: a name that resolved to a
// public address at submission and to a private one later (DNS rebinding) is refused then.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64: reaches IPv4 addresses, private ones too
] as const)
  refused.addSubnet(network, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true; // not an address at all: never connect to it
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d) goes where its IPv4 address goes.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped !== undefined) return refused.check(mapped, 'ipv4');
    return refused.check(address, 'ipv6');
  }
  return refused.check(address, 'ipv4');
}

export class PrivateAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, a private, loopback or link-local address`);
    this.name = 'PrivateAddressError';
  }
}

/** A `lookup` for http.request that fails when any address it hands the socket is private. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const bad = allowPrivate ? undefined : addresses.find(({ address }) => isPrivateAddress(address));
      if (bad) return callback(new PrivateAddressError(hostname, bad.address), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const [first] = addresses;
      if (!first) return callback(new Error(`${hostname} has no address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}
