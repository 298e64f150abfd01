// Which addresses a webhook may reach (openapi.yaml, "Webhooks", Addresses): globally routable unicast
// only. Refused, whatever else:
//   - an address of one of this host's own network interfaces (other than loopback), re-read from
//     os.networkInterfaces() at every judgement, so an address the host gained since start counts:
//     a callback there reaches the server's own services (its Redis, its metrics) from inside;
//   - addresses that are no unicast destination: unspecified, multicast, broadcast.
// Refused unless the operator's allow-list (PDN_WEBHOOK_ALLOW_CIDRS) names a range holding them:
//   - every IANA special-purpose range of the IPv4 and IPv6 registries (RFC 6890 and its updates)
//     that is not globally reachable or is documentation, and every IPv6 address outside 2000::/3;
//   - for an IPv6 address that carries an IPv4 one (IPv4-mapped ::ffff:0:0/96, the NAT64 prefix
//     64:ff9b::/96, 6to4 2002::/16), the IPv4 address is judged as if it were the destination, since
//     it is where the packets end up. IPv4-compatible ::/96 ([::127.0.0.1]) is deprecated and
//     refused as it stands: it does not reach the IPv4 address on any current stack.
// ipaddr.js parses and matches, after node:net's isIP has said the text is an address as the socket
// reads it (STYLE.md 24: parse like the consumer).
import type { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';
import { newResolver } from './resolve-host.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = readonly [network: string, prefix: number, name: string];

const IPV4_SPECIAL: readonly Range[] = [
  ['0.0.0.0', 8, '"this network" (RFC 791)'],
  ['10.0.0.0', 8, 'private (RFC 1918)'],
  ['100.64.0.0', 10, 'shared address space (RFC 6598)'],
  ['127.0.0.0', 8, 'loopback (RFC 1122)'],
  ['169.254.0.0', 16, 'link-local (RFC 3927), where cloud metadata services answer'],
  ['172.16.0.0', 12, 'private (RFC 1918)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1, RFC 5737)'],
  ['192.88.99.0', 24, 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0', 16, 'private (RFC 1918)'],
  ['198.18.0.0', 15, 'benchmarking (RFC 2544)'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2, RFC 5737)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3, RFC 5737)'],
  ['224.0.0.0', 4, 'multicast (RFC 5771)'],
  ['240.0.0.0', 4, 'reserved (RFC 1112)'],
  ['255.255.255.255', 32, 'limited broadcast (RFC 919)'],
];

/** Inside 2000::/3, the global unicast space; everything outside it is refused by that alone. */
const IPV6_SPECIAL: readonly Range[] = [
  ['2001::', 23, 'IETF protocol assignments (RFC 2928; Teredo, ORCHID and the rest)'],
  ['2001:db8::', 32, 'documentation (RFC 3849)'],
  ['3fff::', 20, 'documentation (RFC 9637)'],
];

/** Never a destination, whatever the allow-list says. */
const NEVER: readonly Range[] = [
  ['0.0.0.0', 8, '"this network" (RFC 791)'],
  ['224.0.0.0', 4, 'multicast (RFC 5771)'],
  ['255.255.255.255', 32, 'limited broadcast (RFC 919)'],
  ['::', 128, 'unspecified (RFC 4291)'],
  ['ff00::', 8, 'multicast (RFC 4291)'],
];

const LOOPBACK: readonly Range[] = [
  ['127.0.0.0', 8, 'loopback'],
  ['::1', 128, 'loopback'],
];

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');

type Cidr = [Address, number];

function cidrs(ranges: readonly Range[]): [Cidr, string][] {
  return ranges.map(([network, prefix, name]) => [[ipaddr.parse(network), prefix], name]);
}

const specialV4 = cidrs(IPV4_SPECIAL);
const specialV6 = cidrs(IPV6_SPECIAL);
const never = cidrs(NEVER);
const loopback = cidrs(LOOPBACK);

function within(address: Address, range: Cidr): boolean {
  return address.kind() === range[0].kind() && address.match(range);
}

function named(address: Address, table: readonly [Cidr, string][]): string | undefined {
  return table.find(([range]) => within(address, range))?.[1];
}

/** The IPv4 address an IPv6 one carries to where it ends up, if it is of a kind that does. */
function carriedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress() || address.match(NAT64)) {
    const bytes = address.toByteArray();
    return new ipaddr.IPv4(bytes.slice(12, 16));
  }
  if (address.match(SIX_TO_FOUR)) return new ipaddr.IPv4(address.toByteArray().slice(2, 6));
  return undefined;
}

/**
 * `text`, already an address to node:net, as ipaddr.js's object. An IPv6 address written with a
 * dotted IPv4 tail is rewritten in hex first: ipaddr.js reads the deprecated `::a.b.c.d` as the
 * IPv4-mapped `::ffff:a.b.c.d`, while the socket connects to `::a.b.c.d` itself.
 */
function parseAddress(text: string): Address {
  if (isIP(text) !== 6) return ipaddr.parse(text);
  const hex = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_all, a, b, c, d) => {
    const group = (high: string, low: string) => ((Number(high) << 8) | Number(low)).toString(16);
    return `${group(a, b)}:${group(c, d)}`;
  });
  return ipaddr.parse(hex);
}

/** Parses `127.0.0.0/8,::1/128`; throws an Error naming the first entry that is not a CIDR range. */
export function parseCidrList(text: string): string[] {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries)
    if (!ipaddr.isValidCIDR(entry)) throw new Error(`"${entry}" is not a CIDR range such as 10.0.0.0/8`);
  return entries;
}

/** Addresses of this host's interfaces, as they are now. */
export type InterfaceAddresses = () => readonly string[];

export const hostInterfaceAddresses: InterfaceAddresses = () =>
  Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map(({ address }) => address));

export interface AddressPolicyOptions {
  /** This host's addresses now; the real interfaces by default. */
  interfaces?: InterfaceAddresses;
  /** How host names are resolved (resolve-host.ts); the system's DNS servers by default. */
  resolver?: Resolver;
}

export class AddressPolicy {
  readonly #allowed: Cidr[];
  readonly #interfaces: InterfaceAddresses;
  readonly resolver: Resolver;

  constructor(
    /** CIDR ranges the operator opens (PDN_WEBHOOK_ALLOW_CIDRS), e.g. the tests' `127.0.0.0/8`. */
    readonly allowCidrs: readonly string[] = [],
    options: AddressPolicyOptions = {},
  ) {
    this.#allowed = allowCidrs.map((text) => ipaddr.parseCIDR(text) as Cidr);
    this.#interfaces = options.interfaces ?? hostInterfaceAddresses;
    this.resolver = options.resolver ?? newResolver();
  }

  /** Why `text` may not be connected to, or undefined when it may. */
  refusal(text: string): string | undefined {
    if (isIP(text) === 0) return `${text} is not an IP address`;
    const address = parseAddress(text);
    const own = this.#ownAddress(address);
    if (own) return `${text} is an address of this server's own host`;
    const carried = address.kind() === 'ipv6' ? carriedIpv4(address as ipaddr.IPv6) : undefined;
    if (carried) {
      const why = this.refusal(carried.toString());
      return why === undefined ? undefined : `${text} carries ${carried}: ${why}`;
    }
    const forbidden = named(address, never);
    if (forbidden) return `${text} is ${forbidden}, never a webhook's destination`;
    if (this.#allowed.some((range) => within(address, range))) return undefined;
    const special =
      address.kind() === 'ipv4'
        ? named(address, specialV4)
        : address.match(GLOBAL_UNICAST)
          ? named(address, specialV6)
          : 'outside the global unicast space 2000::/3 (RFC 4291)';
    if (special) return `${text} is ${special}`;
    return undefined;
  }

  #ownAddress(address: Address): boolean {
    if (named(address, loopback)) return false;
    const normal = address.toNormalizedString();
    return this.#interfaces().some((own) => {
      if (isIP(own) === 0) return false;
      const parsed = parseAddress(own);
      const plain =
        parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
          ? (parsed as ipaddr.IPv6).toIPv4Address()
          : parsed;
      return plain.toNormalizedString() === normal;
    });
  }
}
