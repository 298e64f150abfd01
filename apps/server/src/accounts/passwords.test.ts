// Password hashes on the server's hashing threads (needs a build: the thread runs dist/'s worker).
import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';

// A hash takes about 0.3 s on an idle 2-core machine, several times that on a busy one.
const HASHING = { timeout: 60_000 };

import { PasswordHasher } from './password-hasher.js';
import { hashPassword, NO_ACCOUNT_HASH, passwordProblem, verifyPassword } from './passwords.js';
import { ScryptThreads } from './scrypt-threads.js';

const threads = new ScryptThreads(1);
const derive = threads.derive.bind(threads);
afterAll(() => threads.close());

describe('passwords', () => {
  it('hashes with scrypt and a fresh salt, and verifies only the right password', HASHING, async () => {
    const first = await hashPassword('correct horse battery', derive);
    const second = await hashPassword('correct horse battery', derive);
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(second).not.toBe(first);
    expect(await verifyPassword('correct horse battery', first, derive)).toBe(true);
    expect(await verifyPassword('correct horse batterY', first, derive)).toBe(false);
  });

  it.each([
    ['the no-account hash', NO_ACCOUNT_HASH],
    ['another scheme', 'bcrypt$2b$10$abc'],
    ['garbage', 'not a hash'],
    ['empty', ''],
  ])('says no to %s', HASHING, async (_name, stored) => {
    expect(await verifyPassword('anything at all', stored, derive)).toBe(false);
  });

  it.each([
    ['too short', 'short', 'Use at least 10 characters.'],
    ['long enough', 'ten chars!', undefined],
    ['too long', 'x'.repeat(201), 'Use at most 200 characters.'],
  ])('judges a password %s', (_name, password, want) => {
    expect(passwordProblem(password)).toBe(want);
  });
});

describe('PasswordHasher', () => {
  it(
    'checks passwords through its places: a hash made by one check verifies in another',
    HASHING,
    async () => {
      const hasher = new PasswordHasher({ running: 1, places: 2, perAddress: 2 });
      try {
        const stored = await hasher.hash('correct horse battery', { address: '192.0.2.1' });
        expect(await hasher.verify('correct horse battery', stored, { address: '192.0.2.1' })).toBe(true);
        const [a, b, c] = await Promise.allSettled([
          hasher.verify('wrong', stored, { address: '192.0.2.1' }),
          hasher.verify('wrong', stored, { address: '192.0.2.2' }),
          hasher.verify('wrong', stored, { address: '192.0.2.3' }),
        ]);
        expect([a?.status, b?.status]).toEqual(['fulfilled', 'fulfilled']);
        expect(c).toMatchObject({ status: 'rejected', reason: { name: 'NoHashPlaceError', reason: 'full' } });
      } finally {
        await hasher.close();
      }
    },
  );
});

describe('ScryptThreads', () => {
  it("leaves libuv's thread pool to the API: file reads finish while four hashes run", HASHING, async () => {
    const four = new ScryptThreads(4);
    const deriveOnFour = four.derive.bind(four);
    try {
      // Each thread started and warm, so that the hashes below are running, not starting.
      await Promise.all(Array.from({ length: 4 }, () => hashPassword('warm up', deriveOnFour)));
      let hashed = 0;
      const hashes = Array.from({ length: 4 }, () =>
        hashPassword('correct horse battery', deriveOnFour).then(() => {
          hashed += 1;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      // fs.readFile waits on libuv's pool (four threads unless UV_THREADPOOL_SIZE says otherwise): had
      // the hashes taken its threads, as node:crypto's asynchronous scrypt does, no read would finish
      // before a hash had.
      await Promise.all(Array.from({ length: 8 }, () => readFile(new URL(import.meta.url))));
      expect(hashed).toBe(0);
      await Promise.all(hashes);
      expect(hashed).toBe(4);
    } finally {
      await four.close();
    }
  });
});
