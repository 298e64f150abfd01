// The delivery store contract (STYLE.md 16): every DeliveryStore backend passes these cases, run by
// the database backend's suite (database/sqlite/, database/postgres/).
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import type { AttemptRecord, ClaimRoom, DeliveryStore } from './delivery-store.js';

const EVENT = { id: 'evt_1', body: '{"id":"evt_1"}' };

/** Attempt `number`, answered `status` at `at`. */
const answered = (number: number, at: number, status: number): AttemptRecord => ({
  number,
  at,
  result: { status, bodyStart: `answer ${number}` },
});

/** Room for `limit` deliveries, skipping nobody unless told. */
const room = (limit = 10, skip: Partial<ClaimRoom> = {}): ClaimRoom => ({
  limit,
  skipUsers: [],
  skipHosts: [],
  ...skip,
});

export function deliveryStoreContract(backend: Backend): void {
  describe(`DeliveryStore (${backend.name})`, () => {
    const f = useAccounts(backend);
    const store = (): DeliveryStore => f.accounts.deliveries;
    const user = async (name: string) => (await f.accounts.users.ensure(name, 'premium')).user.id;

    it('waits for the job, then is due with its event, claimed once per attempt', async () => {
      const ada = await user('ada');
      await store().subscribe('job_1', ada, 'https://example.com/hook', T0);
      expect(await store().waiting()).toEqual(['job_1']);
      expect(await store().claimDue(T0, T0 + 10, room())).toEqual([]);
      expect(await store().ready('job_1', EVENT, T0 + 5)).toBe(true);
      expect(await store().ready('job_1', { id: 'evt_2', body: '{}' }, T0 + 6)).toBe(false);
      expect(await store().waiting()).toEqual([]);
      expect(await store().claimDue(T0 + 4, T0 + 100, room())).toEqual([]);
      const [claimed] = await store().claimDue(T0 + 5, T0 + 100, room());
      expect(claimed).toEqual({
        jobId: 'job_1',
        userId: ada,
        url: 'https://example.com/hook',
        host: 'example.com',
        state: 'due',
        eventId: 'evt_1',
        body: EVENT.body,
        attempts: 1,
        nextAttemptAt: T0 + 100,
      });
      // Leased: nobody else takes it before the lease ends.
      expect(await store().claimDue(T0 + 99, T0 + 200, room())).toEqual([]);
      await store().settle('job_1', { state: 'due', retryAt: T0 + 150 }, answered(1, T0 + 50, 500));
      expect(await store().claimDue(T0 + 149, T0 + 300, room())).toEqual([]);
      expect(await store().claimDue(T0 + 150, T0 + 300, room())).toMatchObject([{ attempts: 2 }]);
      await store().settle('job_1', { state: 'delivered' }, answered(2, T0 + 160, 200));
      expect(await store().claimDue(T0 + 10_000, T0 + 20_000, room())).toEqual([]);
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
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store()).claimDue(T0, T0 + 100, room())),
      );
      expect(claims.flat()).toHaveLength(1);
    });

    it('claims fairly: the oldest due of each user and of each host, passing over those skipped', async () => {
      const [ada, bob, cy] = [await user('ada'), await user('bob'), await user('cy')];
      const due = async (jobId: string, userId: number, url: string, at: number) => {
        await store().subscribe(jobId, userId, url, T0);
        await store().ready(jobId, { id: `evt_${jobId}`, body: '{}' }, at);
      };
      await due('job_a1', ada, 'https://a.example/hook', T0 + 1);
      await due('job_a2', ada, 'https://a.example/hook', T0 + 2);
      await due('job_a3', ada, 'https://other.example:8443/', T0 + 3);
      await due('job_b1', bob, 'https://a.example/other', T0 + 4);
      await due('job_b2', bob, 'https://b.example/', T0 + 5);
      await due('job_c1', cy, 'https://c.example/', T0 + 6);
      const ids = (claimed: { jobId: string }[]) => claimed.map((delivery) => delivery.jobId);
      // Ada's oldest; not Bob's oldest, on a host whose oldest is Ada's; Cy's.
      expect(ids(await store().claimDue(T0 + 10, T0 + 100, room(10, { skipHosts: ['b.example'] })))).toEqual([
        'job_a1',
        'job_c1',
      ]);
      expect(await store().get('job_a3')).toMatchObject({ host: 'other.example:8443' });
      expect(ids(await store().claimDue(T0 + 10, T0 + 100, room(10, { skipUsers: [ada] })))).toEqual([
        'job_b1',
      ]);
      expect(ids(await store().claimDue(T0 + 10, T0 + 100, room(1)))).toEqual(['job_a2']);
      expect(ids(await store().claimDue(T0 + 10, T0 + 100, room(0)))).toEqual([]);
      expect(ids(await store().claimDue(T0 + 10, T0 + 100, room()))).toEqual(['job_a3', 'job_b2']);
    });

    it('tells when the soonest delivery not yet due will be', async () => {
      const ada = await user('ada');
      expect(await store().nextAttemptAfter(T0)).toBeUndefined();
      for (const [jobId, at] of [
        ['job_1', T0 + 50],
        ['job_2', T0 + 20],
        ['job_3', T0 + 90],
      ] as const) {
        await store().subscribe(jobId, ada, 'https://example.com/hook', T0);
        await store().ready(jobId, EVENT, at);
      }
      expect(await store().nextAttemptAfter(T0)).toBe(T0 + 20);
      expect(await store().nextAttemptAfter(T0 + 20)).toBe(T0 + 50);
      // A claimed delivery is due again when its lease ends; one due already does not count.
      expect(await store().claimDue(T0 + 50, T0 + 60, room())).toMatchObject([{ jobId: 'job_2' }]);
      expect(await store().nextAttemptAfter(T0 + 50)).toBe(T0 + 60);
      await store().settle('job_2', { state: 'delivered' }, answered(1, T0 + 55, 204));
      expect(await store().nextAttemptAfter(T0 + 50)).toBe(T0 + 90);
    });

    it("keeps each attempt's outcome, lists a user's latest deliveries and sends one again", async () => {
      const ada = await user('ada');
      const bob = await user('bob');
      await store().subscribe('job_1', ada, 'https://a.example/hook', T0);
      await store().subscribe('job_2', ada, 'https://b.example/hook', T0 + 1);
      await store().subscribe('job_3', bob, 'https://a.example/hook', T0 + 2);
      await store().ready('job_1', EVENT, T0 + 10);
      await store().claimDue(T0 + 10, T0 + 20, room());
      const refused = { number: 1, at: T0 + 11, result: { error: 'connect ECONNREFUSED' } };
      await store().settle('job_1', { state: 'due', retryAt: T0 + 30 }, refused);
      await store().claimDue(T0 + 30, T0 + 40, room());
      await store().settle('job_1', { state: 'failed' }, answered(2, T0 + 31, 503));
      expect(await store().recent(ada, 10)).toEqual([
        expect.objectContaining({ jobId: 'job_2', state: 'waiting', createdAt: T0 + 1, attemptLog: [] }),
        expect.objectContaining({
          jobId: 'job_1',
          state: 'failed',
          attempts: 2,
          createdAt: T0,
          attemptLog: [refused, answered(2, T0 + 31, 503)],
        }),
      ]);
      expect((await store().recent(ada, 1)).map((d) => d.jobId)).toEqual(['job_2']);
      // Only a delivered or failed delivery, and only its owner's.
      expect(await store().sendAgain('job_1', bob, T0 + 50)).toBe(false);
      expect(await store().sendAgain('job_2', ada, T0 + 50)).toBe(false);
      expect(await store().sendAgain('job_1', ada, T0 + 50)).toBe(true);
      expect(await store().sendAgain('job_1', ada, T0 + 50)).toBe(false);
      expect(await store().claimDue(T0 + 50, T0 + 60, room())).toMatchObject([
        { jobId: 'job_1', attempts: 3 },
      ]);
      await store().settle('job_1', { state: 'delivered' }, answered(3, T0 + 51, 200));
      expect((await store().recent(ada, 10))[1]?.attemptLog.map((a) => a.number)).toEqual([1, 2, 3]);
      // Forgotten with its delivery.
      await store().forget(T0);
      expect((await store().recent(ada, 10)).map((d) => d.jobId)).toEqual(['job_2']);
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
