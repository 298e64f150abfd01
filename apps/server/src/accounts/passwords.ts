// Password hashes: scrypt, memory-hard, with a random salt per user. The stored form names its
// parameters (`scrypt$N$r$p$salt$hash`, base64url), so they can be raised later without breaking the
// hashes already stored. N = 2^15, r = 8: 32 MiB and, measured on the 2-core CI machine, about 0.28 s
// per hash or check. The key is derived by whatever `derive` is given: the server's is
// password-hasher.ts, on threads of its own; sign-in throttling keeps an attacker from making it do many.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ScryptRequest } from './scrypt-threads.js';

const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
/** What a password may be: long enough to resist guessing, short enough that hashing it stays cheap. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

export type Derive = (request: ScryptRequest) => Promise<Buffer>;

/** Why a password is not acceptable, or undefined when it is. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  return undefined;
}

export async function hashPassword(password: string, derive: Derive): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive({
    password,
    salt,
    keyLength: KEY_LENGTH,
    cost: COST,
    blockSize: BLOCK_SIZE,
    parallelism: PARALLELISM,
  });
  return [
    'scrypt',
    COST,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** Whether `password` matches `stored`; compares in constant time, and says no to a malformed hash. */
export async function verifyPassword(password: string, stored: string, derive: Derive): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive({
    password,
    salt: Buffer.from(salt, 'base64url'),
    keyLength: expected.length,
    cost: Number(n),
    blockSize: Number(r),
    parallelism: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash that matches no password, verified when the account does not exist, so an unknown email
 * costs as long as a wrong password and the timing tells nothing (no account enumeration).
 */
export const NO_ACCOUNT_HASH = `scrypt$${COST}$${BLOCK_SIZE}$${PARALLELISM}$${'A'.repeat(22)}$${'A'.repeat(43)}`;
