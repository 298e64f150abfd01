// The job store contract (issue #13; STYLE.md 16): every JobStore backend passes these cases, run by
// the backend's suite (accounts/sqlite/sqlite.test.ts, accounts/postgres/postgres.test.ts) on the
// accounts fixture.
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../accounts/contract-harness.js';
import type { JobMode, JobStore, NewJob } from './job-store.js';

const INPUT = { files: [{ stored: '0', name: 'a.pdf', size: 10 }], params: { level: 'high' } };

export function jobStoreContract(backend: Backend): void {
  describe(`JobStore (${backend.name})`, () => {
    const f = useAccounts(backend);
    const jobs = (): JobStore => f.accounts.jobs;
    let made = 0;
    const user = async (name: string) => (await f.accounts.users.ensure(name, 'premium')).user.id;
    const submit = async (userId: number, mode: JobMode = 'async', id = `job_${++made}`) => {
      const job: NewJob = { id, userId, operation: 'compress', mode, input: INPUT };
      f.clock += 1;
      return jobs().create(job, f.clock);
    };
    const claimAll = async () => {
      const order: string[] = [];
      for (let job = await jobs().claimNext(f.clock); job; job = await jobs().claimNext(f.clock))
        order.push(job.id);
      return order;
    };

    it('stores a queued job as given and reads it back', async () => {
      const ada = await user('ada');
      const created = await submit(ada, 'async', 'job_one');
      expect(created).toMatchObject({
        id: 'job_one',
        userId: ada,
        operation: 'compress',
        mode: 'async',
        status: 'queued',
        attempts: 0,
        input: INPUT,
        createdAt: T0 + 1,
        startedAt: null,
        finishedAt: null,
        result: null,
        error: null,
      });
      expect(await jobs().get('job_one')).toEqual(created);
      expect(await jobs().get('job_none')).toBeUndefined();
    });

    it('starts jobs fairly: the user whose last job started longest ago goes first', async () => {
      const [ada, bob, cy] = [await user('ada'), await user('bob'), await user('cy')];
      const a1 = await submit(ada);
      expect((await jobs().claimNext(f.clock))?.id).toBe(a1.id);
      const rest = [await submit(ada), await submit(ada), await submit(ada)];
      const b1 = await submit(bob);
      const c1 = await submit(cy);
      const b2 = await submit(bob);
      expect(await claimAll()).toEqual([b1.id, c1.id, rest[0]?.id, b2.id, rest[1]?.id, rest[2]?.id]);
    });

    it('marks a claimed job running, counts the attempt, and never hands it out twice', async () => {
      const ada = await user('ada');
      const job = await submit(ada);
      const other = await f.again();
      const [first, second] = await Promise.all([jobs().claimNext(f.clock), other.jobs.claimNext(f.clock)]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(await jobs().get(job.id)).toMatchObject({ status: 'running', attempts: 1, startedAt: f.clock });
    });

    it('finishes an unfinished job once, with its outcome', async () => {
      const ada = await user('ada');
      const [a, b, c] = [await submit(ada), await submit(ada), await submit(ada)];
      await jobs().claimNext(f.clock);
      f.clock += 5;
      const done = await jobs().finish(a.id, { status: 'succeeded', result: { text: 'hi' } }, f.clock);
      expect(done).toMatchObject({ status: 'succeeded', result: { text: 'hi' }, finishedAt: f.clock });
      expect(await jobs().finish(a.id, { status: 'canceled' }, f.clock)).toBeUndefined();
      const error = { code: 'invalid_input', message: 'not a PDF' } as const;
      expect(await jobs().finish(b.id, { status: 'failed', error }, f.clock)).toMatchObject({
        status: 'failed',
        error,
      });
      expect(await jobs().finish(c.id, { status: 'canceled' }, f.clock)).toMatchObject({
        status: 'canceled',
      });
      expect(await jobs().countUnfinished(ada)).toBe(0);
    });

    it("lists one user's jobs newest first, page by page, filtered by status", async () => {
      const [ada, bob] = [await user('ada'), await user('bob')];
      const mine = [];
      for (let i = 0; i < 5; i += 1) mine.push((await submit(ada)).id);
      await submit(bob);
      await jobs().finish(mine[1] ?? '', { status: 'canceled' }, f.clock);
      const first = await jobs().list(ada, { limit: 2 });
      expect(first?.jobs.map((job) => job.id)).toEqual([mine[4], mine[3]]);
      const second = await jobs().list(ada, { limit: 2, cursor: first?.next ?? '' });
      expect(second?.jobs.map((job) => job.id)).toEqual([mine[2], mine[1]]);
      const third = await jobs().list(ada, { limit: 2, cursor: second?.next ?? '' });
      expect(third).toMatchObject({ jobs: [{ id: mine[0] }], next: null });
      expect((await jobs().list(ada, { limit: 10, status: 'canceled' }))?.jobs.map((job) => job.id)).toEqual([
        mine[1],
      ]);
      expect(await jobs().list(ada, { limit: 10, cursor: 'nonsense' })).toBeUndefined();
      expect(await jobs().countUnfinished(ada)).toBe(4);
      expect(await jobs().countUnfinished(bob)).toBe(1);
    });

    it('after a crash: running jobs run again once, then fail; synchronous ones are canceled', async () => {
      const ada = await user('ada');
      const [once, twice, waiting, sync] = [
        await submit(ada),
        await submit(ada),
        await submit(ada),
        await submit(ada, 'sync'),
      ];
      await jobs().claimNext(f.clock); // once: attempt 1
      await jobs().claimNext(f.clock); // twice: attempt 1
      await jobs().recover(2, { code: 'internal_error', message: 'x' }, f.clock, true);
      // Both went back to the queue; `twice` now starts its second attempt and is interrupted again.
      expect(await claimAll()).toEqual([once.id, twice.id, waiting.id]);
      await jobs().release(once.id);
      const error = { code: 'internal_error', message: 'interrupted twice' } as const;
      const recovery = await (await f.again()).jobs.recover(2, error, f.clock, true);
      expect(recovery).toEqual({ canceled: [], failed: [twice.id], requeued: [waiting.id] });
      expect(await jobs().get(twice.id)).toMatchObject({ status: 'failed', error, attempts: 2 });
      expect(await jobs().get(once.id)).toMatchObject({ status: 'queued', attempts: 1 });
      expect(await jobs().get(sync.id)).toMatchObject({ status: 'canceled' });
      expect((await jobs().unfinishedIds()).sort()).toEqual([once.id, waiting.id].sort());
    });

    it('after a worker crash (issue #16): synchronous jobs, whose callers wait elsewhere, run again too', async () => {
      const ada = await user('ada');
      const [running, waiting] = [await submit(ada, 'sync'), await submit(ada, 'sync')];
      await jobs().claimNext(f.clock);
      const error = { code: 'internal_error', message: 'x' } as const;
      const recovery = await (await f.again()).jobs.recover(2, error, f.clock, false);
      expect(recovery).toEqual({ canceled: [], failed: [], requeued: [running.id] });
      expect(await claimAll()).toEqual([running.id, waiting.id]);
    });

    it('forgets jobs finished at or before the cut-off', async () => {
      const ada = await user('ada');
      const [old, recent, open] = [await submit(ada), await submit(ada), await submit(ada)];
      await jobs().finish(old.id, { status: 'canceled' }, T0 + 100);
      await jobs().finish(recent.id, { status: 'canceled' }, T0 + 200);
      expect(await jobs().forget(T0 + 100)).toEqual([old.id]);
      expect(await jobs().get(old.id)).toBeUndefined();
      expect(await jobs().get(recent.id)).toBeDefined();
      expect(await jobs().get(open.id)).toBeDefined();
    });
  });
}
