// Where a webhook's connection goes: the URL's host resolved (resolve-host.ts) and every address it
// resolves to judged (address-policy.ts), at submission and again at each attempt. The attempt then
// connects to exactly the address judged here (post-event.ts pins it with its own `lookup`), so DNS
// cannot answer differently between the check and the connection (DNS rebinding).
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy.js';
import { resolveHost } from './resolve-host.js';

export interface WebhookTarget {
  /** The address to connect to, already judged. */
  address: string;
  family: 4 | 6;
}

export class RefusedAddressError extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`${host} is refused: ${reason}`);
    this.name = 'RefusedAddressError';
  }
}

/** The URL's host, without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * The address a webhook for `url` connects to. Rejects with RefusedAddressError when any address the
 * host resolves to is refused (a name with one private record is not a public receiver), and with
 * resolveHost's HostNotFoundError when it resolves to none.
 */
export async function webhookTarget(url: URL, policy: AddressPolicy): Promise<WebhookTarget> {
  const host = hostOf(url);
  const addresses = await resolveHost(host, policy.resolver);
  for (const address of addresses) {
    const reason = policy.refusal(address);
    if (reason !== undefined) throw new RefusedAddressError(host, reason);
  }
  const [address = ''] = addresses;
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}
