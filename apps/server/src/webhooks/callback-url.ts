// The `callback_url` field of an asynchronous submission (openapi.yaml `CallbackUrl`, "Webhooks"):
// an absolute http(s) URL of at most 2048 characters, without credentials, whose host resolves only
// to addresses the policy allows (address-policy.ts). Checked here at submission; each delivery
// attempt resolves and checks again, and connects to the address it checked (post-event.ts).
import { InvalidInputError } from '../errors.js';
import type { AddressPolicy } from './address-policy.js';
import { HostNotFoundError } from './resolve-host.js';
import { RefusedAddressError, webhookTarget } from './webhook-target.js';

export const CALLBACK_URL_MAX = 2048;

export async function checkCallbackUrl(raw: string, policy: AddressPolicy): Promise<string> {
  const refuse = (why: string) => new InvalidInputError(`callback_url ${why}`);
  if (raw.length > CALLBACK_URL_MAX) throw refuse(`must be at most ${CALLBACK_URL_MAX} characters.`);
  if (!URL.canParse(raw)) throw refuse('must be an absolute http or https URL.');
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must be an http or https URL.');
  if (url.username !== '' || url.password !== '') throw refuse('must not carry a user name or password.');
  try {
    await webhookTarget(url, policy);
  } catch (error) {
    if (error instanceof HostNotFoundError)
      throw refuse(`names a host that does not resolve (${error.host}).`);
    if (error instanceof RefusedAddressError)
      throw refuse(`is refused: ${error.reason}. This server calls only public addresses (see "Webhooks").`);
    throw error;
  }
  return url.href;
}
