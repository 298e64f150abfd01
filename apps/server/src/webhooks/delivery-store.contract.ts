// The delivery store contract (issue #14; STYLE.md 16): every DeliveryStore backend passes these
// cases, run by the backend's suite (accounts/sqlite/sqlite.test.ts) on the accounts fixture.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../accounts/contract-harness.js';
import type { DeliveryStore } from './delivery-store.js';

const EVENT = { id: 'evt_1', body: '{"id":"evt_1"}' };

export function deliveryStoreContract(backend: Backend): void {
  describe(`DeliveryStore (${backend.name})`, () => {
    const f = useAccounts(backend);
    const store = (): DeliveryStore => f.accounts.deliveries;
    const user = async (name: string) => (await f.accounts.users.ensure(name, 'premium')).user.id;

    it('waits for the job, then is due with its event, claimed once per attempt', async () => {
      const ada = await user('ada');
      await store().subscribe('job_1', ada, 'https://example.com/hook', T0);
      expect(await store().waiting()).toEqual(['job_1']);
      expect(await store().claimDue(T0, T0 + 10, 10)).toEqual([]);
      expect(await store().ready('job_1', EVENT, T0 + 5)).toBe(true);
      expect(await store().ready('job_1', { id: 'evt_2', body: '{}' }, T0 + 6)).toBe(false);
      expect(await store().waiting()).toEqual([]);
      expect(await store().claimDue(T0 + 4, T0 + 100, 10)).toEqual([]);
      const [claimed] = await store().claimDue(T0 + 5, T0 + 100, 10);
      expect(claimed).toEqual({
        jobId: 'job_1',
        userId: ada,
        url: 'https://example.com/hook',
        state: 'due',
        eventId: 'evt_1',
        body: EVENT.body,
        attempts: 1,
        nextAttemptAt: T0 + 100,
      });
      // Leased: nobody else takes it before the lease ends.
      expect(await store().claimDue(T0 + 99, T0 + 200, 10)).toEqual([]);
      await store().settle('job_1', { state: 'due', retryAt: T0 + 150 });
      expect(await store().claimDue(T0 + 149, T0 + 300, 10)).toEqual([]);
      expect(await store().claimDue(T0 + 150, T0 + 300, 10)).toMatchObject([{ attempts: 2 }]);
      await store().settle('job_1', { state: 'delivered' });
      expect(await store().claimDue(T0 + 10_000, T0 + 20_000, 10)).toEqual([]);
      expect(await store().get('job_1')).toMatchObject({
        state: 'delivered',
        attempts: 2,
        nextAttemptAt: null,
      });
    });

    it('hands one due delivery to one of many concurrent claims, from two handles', async () => {
      const ada = await user('ada');
      await store().subscribe('job_1', ada, 'https://example.com/hook', T0);
      await store().ready('job_1', EVENT, T0);
      const other = (await f.again()).deliveries;
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store()).claimDue(T0, T0 + 100, 10)),
      );
      expect(claims.flat()).toHaveLength(1);
    });

    it('drops only a waiting delivery, and forgets old ones', async () => {
      const ada = await user('ada');
      await store().subscribe('job_1', ada, 'https://a.example/', T0);
      await store().subscribe('job_2', ada, 'https://b.example/', T0 + 10);
      await store().ready('job_2', EVENT, T0 + 10);
      await store().drop('job_1');
      await store().drop('job_2');
      expect(await store().get('job_1')).toBeUndefined();
      expect(await store().get('job_2')).toMatchObject({ state: 'due' });
      await store().forget(T0 + 10);
      expect(await store().get('job_2')).toBeUndefined();
    });
  });
}
