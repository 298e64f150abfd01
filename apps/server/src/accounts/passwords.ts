// Password hashing (issue #12): scrypt from node:crypto, memory-hard, with a random salt per user.
// The stored form names its parameters (`scrypt$N$r$p$salt$hash`, base64url), so they can be raised
// later without breaking the hashes already stored. N = 2^15, r = 8: 32 MiB and, measured on the
// 2-core CI machine, about 0.28 s per hash or check (libuv's thread pool runs four at once); sign-in
// throttling keeps an attacker from making us do many.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
/** What a password may be: long enough to resist guessing, short enough that hashing it stays cheap. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem: node's default (32 MiB) is exactly 128 * N * r, which scrypt exceeds by its overhead.
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 256 * n * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** Why a password is not acceptable, or undefined when it is. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  return undefined;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST, BLOCK_SIZE, PARALLELISM);
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
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * A hash that matches no password, verified when the account does not exist, so an unknown email
 * costs as long as a wrong password and the timing tells nothing (issue #12: no enumeration).
 */
export const NO_ACCOUNT_HASH = `scrypt$${COST}$${BLOCK_SIZE}$${PARALLELISM}$${'A'.repeat(22)}$${'A'.repeat(43)}`;
