// The idempotency store contract (STYLE.md 16): every IdempotencyStore backend passes these cases, run
// by the database backend's suite (database/sqlite/, database/postgres/).
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import type { IdempotencyStore } from './idempotency-store.js';

const DAY = 24 * 60 * 60_000;

export function idempotencyStoreContract(backend: Backend): void {
  describe(`IdempotencyStore (${backend.name})`, () => {
    const f = useAccounts(backend);
    const store = (): IdempotencyStore => f.accounts.idempotency;
    const user = async (name: string) => (await f.accounts.users.ensure(name, 'premium')).user.id;
    const claim = (userId: number, key: string, token: string, s: IdempotencyStore = store()) =>
      s.claim(userId, key, token, f.clock, f.clock - DAY);

    it('gives a free key to the first claim and shows the record to the next, bound or not', async () => {
      const ada = await user('ada');
      expect(await claim(ada, 'k1', 'first')).toEqual({ first: true, token: 'first' });
      expect(await claim(ada, 'k1', 'second')).toEqual({
        first: false,
        record: { userId: ada, key: 'k1', token: 'first', fingerprint: null, jobId: null, createdAt: T0 },
      });
      await store().bind(ada, 'k1', 'first', 'fp', 'job_1');
      expect(await claim(ada, 'k1', 'third')).toMatchObject({
        first: false,
        record: { token: 'first', fingerprint: 'fp', jobId: 'job_1' },
      });
    });

    it('keeps keys per user', async () => {
      const ada = await user('ada');
      const bob = await user('bob');
      expect(await claim(ada, 'same', 'a')).toMatchObject({ first: true });
      expect(await claim(bob, 'same', 'b')).toMatchObject({ first: true });
    });

    it('frees a key released by its holder only, and a bind by a stale token changes nothing', async () => {
      const ada = await user('ada');
      await claim(ada, 'k', 'old');
      await store().release(ada, 'k', 'someone-else');
      expect(await claim(ada, 'k', 'x')).toMatchObject({ first: false, record: { token: 'old' } });
      await store().release(ada, 'k', 'old');
      expect(await claim(ada, 'k', 'new')).toEqual({ first: true, token: 'new' });
      await store().bind(ada, 'k', 'old', 'fp', 'job_old');
      await store().release(ada, 'k', 'old');
      expect(await claim(ada, 'k', 'y')).toMatchObject({
        first: false,
        record: { token: 'new', fingerprint: null, jobId: null },
      });
    });

    it('treats a record created before `since` as free, and forgets old records', async () => {
      const ada = await user('ada');
      await claim(ada, 'k', 'old');
      await store().bind(ada, 'k', 'old', 'fp', 'job_1');
      f.clock = T0 + DAY + 1;
      expect(await claim(ada, 'k', 'new')).toEqual({ first: true, token: 'new' });
      await claim(ada, 'other', 'o');
      await store().forget(T0 + DAY);
      expect(await claim(ada, 'other', 'p')).toMatchObject({ first: false });
      await store().forget(T0 + DAY + 1);
      expect(await claim(ada, 'other', 'q')).toEqual({ first: true, token: 'q' });
    });

    it('lets exactly one of many concurrent claims, from two handles, take a key', async () => {
      const ada = await user('ada');
      const other = (await f.again()).idempotency;
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => claim(ada, 'race', `t${i}`, i % 2 ? other : store())),
      );
      expect(claims.filter((c) => c.first)).toHaveLength(1);
    });
  });
}
