// A webhook host's addresses, from DNS with a time limit and off libuv's thread pool: dns.lookup
// (getaddrinfo) waits on that pool, four threads shared with every file operation of the API, and a
// DNS server that never answers would hold one each time. A Resolver asks the DNS servers itself
// (c-ares, on the event loop), giving up after `timeout` per try. It reads no /etc/hosts, so a
// `localhost` name is answered here as RFC 6761 (6.3) says: loopback, without asking DNS.
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Per try of each DNS server; with two tries a name that gets no answer fails within seconds. */
export const DNS_TIMEOUT_MS = 2_000;
export const DNS_TRIES = 2;

export class HostNotFoundError extends Error {
  constructor(
    readonly host: string,
    readonly code: string,
  ) {
    super(`${host} does not resolve (${code})`);
    this.name = 'HostNotFoundError';
  }
}

export function newResolver(servers?: readonly string[]): Resolver {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  if (servers) resolver.setServers(servers);
  return resolver;
}

/** The addresses of `host` (an address literal is its own), IPv4 first; rejects with HostNotFoundError. */
export async function resolveHost(host: string, resolver: Resolver): Promise<string[]> {
  if (isIP(host) !== 0) return [host];
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
  const addresses = [
    ...(v4.status === 'fulfilled' ? v4.value : []),
    ...(v6.status === 'fulfilled' ? v6.value : []),
  ];
  if (addresses.length > 0) return addresses;
  const failure = [v4, v6].find((result) => result.status === 'rejected') as
    | PromiseRejectedResult
    | undefined;
  throw new HostNotFoundError(host, (failure?.reason as { code?: string } | undefined)?.code ?? 'ENODATA');
}
