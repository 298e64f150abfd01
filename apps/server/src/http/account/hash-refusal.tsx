// What the account pages answer when a password could not be hashed now (accounts/password-hasher.ts):
// the client's address already holds its share of hashing places (429: this client is asking too
// much at once), or every place is taken (503: the server is busy with others). Both come at once,
// before any hashing, with Retry-After and the same words on the page. A client that went away
// before its turn gets the busy answer too, which nobody reads. A form that will need a hash asks
// first (refusedBeforeHashing), so a flood the hasher must turn away costs no database work.
import {
  HashAbandonedError,
  NoHashPlaceError,
  type PasswordHasher,
  type RefusalReason,
} from '../../accounts/index.js';
import type { AppContext } from '../state.js';
import { waitText } from './views/time.js';

export interface HashRefusal {
  status: 429 | 503;
  message: string;
}

/** The refusal for `error` when it is one of the hasher's, with Retry-After set; undefined otherwise. */
export function hashRefusal(
  ctx: AppContext,
  error: unknown,
  passwords: PasswordHasher,
): HashRefusal | undefined {
  if (error instanceof NoHashPlaceError) return answer(ctx, error.reason, passwords);
  if (error instanceof HashAbandonedError) return answer(ctx, 'full', passwords);
  return undefined;
}

/** The refusal a request from `address` would meet at the hasher now, answered before any other work. */
export function refusedBeforeHashing(
  ctx: AppContext,
  passwords: PasswordHasher,
  address: string,
): HashRefusal | undefined {
  const reason = passwords.refusalFor(address);
  return reason && answer(ctx, reason, passwords);
}

function answer(ctx: AppContext, reason: RefusalReason, passwords: PasswordHasher): HashRefusal {
  const seconds = passwords.retryAfterSeconds();
  ctx.set('Retry-After', String(seconds));
  const when = `Try again in ${waitText(seconds)}.`;
  if (reason === 'address')
    return { status: 429, message: `Too many password checks from your address at once. ${when}` };
  return { status: 503, message: `The server is busy checking other passwords. ${when}` };
}
