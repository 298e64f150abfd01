import { describe, expect, it } from 'vitest';
import { hashPassword, NO_ACCOUNT_HASH, passwordProblem, verifyPassword } from './passwords.js';

describe('passwords', () => {
  it('hashes with scrypt and a fresh salt, and verifies only the right password', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(second).not.toBe(first);
    expect(await verifyPassword('correct horse battery', first)).toBe(true);
    expect(await verifyPassword('correct horse batterY', first)).toBe(false);
  });

  it.each([
    ['the no-account hash', NO_ACCOUNT_HASH],
    ['another scheme', 'bcrypt$2b$10$abc'],
    ['garbage', 'not a hash'],
    ['empty', ''],
  ])('says no to %s', async (_name, stored) => {
    expect(await verifyPassword('anything at all', stored)).toBe(false);
  });

  it.each([
    ['too short', 'short', 'Use at least 10 characters.'],
    ['long enough', 'ten chars!', undefined],
    ['too long', 'x'.repeat(201), 'Use at most 200 characters.'],
  ])('judges a password %s', (_name, password, want) => {
    expect(passwordProblem(password)).toBe(want);
  });
});
