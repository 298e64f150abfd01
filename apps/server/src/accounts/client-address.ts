// The key a client's address is counted under, by the sign-in throttle and by the password-hashing
// places. An IPv4 address is its own key. An IPv6 address is keyed by its /64: one subscriber line or
// one host is normally given a whole /64 (RFC 6177), so per-address limits keyed by the full address
// would give such a client 2^64 fresh addresses to rotate through. An IPv4-mapped IPv6 address
// (::ffff:a.b.c.d, as a dual-stack socket reports an IPv4 client) is that IPv4 address.
import ipaddr from 'ipaddr.js';

export function clientAddressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
