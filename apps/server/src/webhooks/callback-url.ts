// The `callback_url` field of an asynchronous submission (openapi.yaml `CallbackUrl`, "Webhooks"):
// an absolute http(s) URL of at most 2048 characters, without credentials, whose host is not (and
// does not resolve to) a private address unless the operator allows it. Checked once here, at
// submission; each delivery attempt checks the addresses it connects to again (address-policy.ts).
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { InvalidInputError } from '../errors.js';
import { isPrivateAddress } from './address-policy.js';

export const CALLBACK_URL_MAX = 2048;

export async function checkCallbackUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const refuse = (why: string) => new InvalidInputError(`callback_url ${why}`);
  if (raw.length > CALLBACK_URL_MAX) throw refuse(`must be at most ${CALLBACK_URL_MAX} characters.`);
  if (!URL.canParse(raw)) throw refuse('must be an absolute http or https URL.');
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must be an http or https URL.');
  if (url.username !== '' || url.password !== '') throw refuse('must not carry a user name or password.');
  if (allowPrivate) return url.href;
  // URL keeps IPv6 hosts in brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true }).then(
        (found) => found.map(({ address }) => address),
        () => {
          throw refuse(`names a host that does not resolve (${host}).`);
        },
      );
  const bad = addresses.find(isPrivateAddress);
  if (bad !== undefined)
    throw refuse(
      `resolves to ${bad}, a loopback, private or link-local address, which this server does not call (see "Webhooks").`,
    );
  return url.href;
}
