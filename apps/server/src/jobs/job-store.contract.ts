// The job store contract (STYLE.md 16): every JobStore backend passes these cases, run by the database
// backend's suite (database/sqlite/sqlite.test.ts, database/postgres/postgres.test.ts).
import { describe, expect, it } from 'vitest';
import { type Backend, T0, useAccounts } from '../database/contract-harness.js';
import { claimNext, claimUpTo } from './fair-share.js';
import { type JobMode, type JobStore, type NewJob, UnfinishedJobsCapReached } from './job-store.js';

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
      for (let job = await claimNext(jobs(), f.clock, 1); job; job = await claimNext(jobs(), f.clock, 1))
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
        queuedAt: T0 + 1,
        startedAt: null,
        finishedAt: null,
        result: null,
        error: null,
      });
      expect(await jobs().get('job_one')).toEqual(created);
      expect(await jobs().get('job_none')).toBeUndefined();
    });

    it('keeps the request that submitted a job, and reads several jobs at once', async () => {
      const ada = await user('ada');
      const job: NewJob = { id: 'job_req', userId: ada, operation: 'merge', mode: 'sync', input: INPUT };
      const traced = await jobs().create({ ...job, requestId: 'req-0001' }, f.clock);
      const untraced = await submit(ada);
      expect(traced.requestId).toBe('req-0001');
      expect(untraced.requestId).toBeUndefined();
      const found = await jobs().getMany(['job_req', untraced.id, 'job_none']);
      expect(found.map((record) => record.id).sort()).toEqual(['job_req', untraced.id].sort());
      expect(await jobs().getMany([])).toEqual([]);
    });

    it('starts jobs fairly: the user whose last job started longest ago goes first', async () => {
      const [ada, bob, cy] = [await user('ada'), await user('bob'), await user('cy')];
      const a1 = await submit(ada);
      expect((await claimNext(jobs(), f.clock, 1))?.id).toBe(a1.id);
      const rest = [await submit(ada), await submit(ada), await submit(ada)];
      const b1 = await submit(bob);
      const c1 = await submit(cy);
      const b2 = await submit(bob);
      expect(await claimAll()).toEqual([b1.id, c1.id, rest[0]?.id, b2.id, rest[1]?.id, rest[2]?.id]);
    });

    it('starts a burst in the same fair order from one read of who has work', async () => {
      const [ada, bob, cy] = [await user('ada'), await user('bob'), await user('cy')];
      await submit(ada);
      await claimNext(jobs(), f.clock, 1);
      const rest = [await submit(ada), await submit(ada), await submit(ada)];
      const b1 = await submit(bob);
      const c1 = await submit(cy);
      const b2 = await submit(bob);
      let reads = 0;
      const counted: JobStore = Object.create(jobs(), {
        usersWithWork: {
          value: () => {
            reads += 1;
            return jobs().usersWithWork();
          },
        },
      });
      const burst = await claimUpTo(counted, f.clock, 8, 5);
      expect(burst.map((job) => job.id)).toEqual([b1.id, c1.id, rest[0]?.id, b2.id, rest[1]?.id]);
      expect(reads).toBe(1);
      // Room for more than is queued: the one left, and no more.
      expect((await claimUpTo(jobs(), f.clock, 8, 5)).map((job) => job.id)).toEqual([rest[2]?.id]);
    });

    it("tells each user's work for the fair order, and starts one user's oldest job only", async () => {
      const [ada, bob] = [await user('ada'), (await f.accounts.users.ensure('bob', 'free')).user.id];
      const [a1, a2, b1] = [await submit(ada), await submit(ada), await submit(bob)];
      expect(await jobs().claimOldest(ada, f.clock)).toMatchObject({ id: a1.id, status: 'running' });
      const work = await jobs().usersWithWork();
      const byUser = Object.fromEntries(work.map((w) => [w.userId, w]));
      expect(byUser[ada]).toMatchObject({ plan: 'premium', queued: 1, running: 1 });
      expect(byUser[ada]?.lastStart).toEqual(expect.any(Number));
      expect(byUser[bob]).toEqual({ userId: bob, plan: 'free', queued: 1, running: 0, lastStart: null });
      expect(await jobs().claimOldest(bob, f.clock)).toMatchObject({ id: b1.id });
      expect(await jobs().claimOldest(bob, f.clock)).toBeUndefined();
      await jobs().finish(a1.id, { status: 'succeeded', result: {} }, f.clock);
      await jobs().finish(b1.id, { status: 'succeeded', result: {} }, f.clock);
      expect((await jobs().usersWithWork()).map((w) => [w.userId, w.queued, w.running])).toEqual([
        [ada, 1, 0],
      ]);
      expect((await jobs().get(a2.id))?.status).toBe('queued');
    });

    it('marks a claimed job running, counts the attempt, and never hands it out twice', async () => {
      const ada = await user('ada');
      const job = await submit(ada);
      const other = await f.again();
      const [first, second] = await Promise.all([
        claimNext(jobs(), f.clock, 1),
        claimNext(other.jobs, f.clock, 1),
      ]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(await jobs().get(job.id)).toMatchObject({ status: 'running', attempts: 1, startedAt: f.clock });
    });

    it('stores a job started at once only while nothing is queued and a slot is free, its start counted in the fair order', async () => {
      const [ada, bob] = [await user('ada'), await user('bob')];
      const job = (id: string, userId: number): NewJob => ({
        id,
        userId,
        operation: 'compress',
        mode: 'sync',
        input: INPUT,
      });
      f.clock += 1;
      const started = await jobs().startNow(job('job_now', ada), f.clock, 2);
      expect(started).toMatchObject({
        status: 'running',
        attempts: 1,
        createdAt: f.clock,
        startedAt: f.clock,
      });
      expect(await jobs().get('job_now')).toEqual(started);
      expect(await claimNext(jobs(), f.clock, 1)).toBeUndefined();
      // Both slots taken: nothing is queued, yet the job waits its turn.
      expect(await jobs().startNow(job('job_second', bob), f.clock, 2)).toMatchObject({ status: 'running' });
      expect(await jobs().startNow(job('job_third', bob), f.clock, 2)).toBeUndefined();
      expect(await jobs().get('job_third')).toBeUndefined();
      await jobs().finish('job_second', { status: 'canceled' }, f.clock);
      // Ada started last: Bob's job goes before her next one.
      const [a2, b1] = [await submit(ada), await submit(bob)];
      expect(await jobs().startNow(job('job_later', bob), f.clock, 10)).toBeUndefined();
      expect(await jobs().get('job_later')).toBeUndefined();
      expect(await claimAll()).toEqual([b1.id, a2.id]);
    });

    it('finishes an unfinished job once, with its outcome', async () => {
      const ada = await user('ada');
      const [a, b, c] = [await submit(ada), await submit(ada), await submit(ada)];
      await claimNext(jobs(), f.clock, 1);
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

    it('keeps the small outputs a success names with its end, and none for a job already ended', async () => {
      const ada = await user('ada');
      const [a, b] = [await submit(ada), await submit(ada)];
      await jobs().finish(b.id, { status: 'canceled' }, f.clock);
      const output = (id: string, text: string) => ({
        meta: { id, filename: `${id}.pdf`, size: text.length, expiresAt: T0 + 1000 },
        body: Buffer.from(text),
      });
      const kept = [output('A'.repeat(24), '%PDF-1 one'), output('B'.repeat(24), '%PDF-1 two')];
      const done = await jobs().finish(a.id, { status: 'succeeded', result: {}, outputs: kept }, f.clock);
      expect(done).toMatchObject({ status: 'succeeded' });
      for (const row of kept) expect(await f.stores.outputRows.get(row.meta.id)).toEqual(row);
      const late = output('C'.repeat(24), '%PDF-1 late');
      const again = { status: 'succeeded', result: {}, outputs: [late] } as const;
      expect(await jobs().finish(b.id, again, f.clock)).toBeUndefined();
      expect(await f.stores.outputRows.get(late.meta.id)).toBeUndefined();
    });

    it('keeps inputs that travel inline with their job until it ends, however it ends', async () => {
      const ada = await user('ada');
      const files = [
        { stored: '0', name: 'a.pdf', size: 3, inline: Buffer.from('%PD').toString('base64') },
        { stored: '1', name: 'b.pdf', size: 2_000_000 },
      ];
      const input = { files, params: {} };
      const job = (id: string, mode: JobMode = 'async'): NewJob => ({
        id,
        userId: ada,
        operation: 'merge',
        mode,
        input,
      });
      const [finished, withdrawn, failing, sync] = [
        await jobs().create(job('job_fin'), f.clock),
        await jobs().create(job('job_wd'), f.clock),
        await jobs().create(job('job_fail'), f.clock),
        await jobs().create(job('job_sync', 'sync'), f.clock),
      ];
      expect(finished.input).toEqual(input);
      expect((await jobs().get(finished.id))?.input).toEqual(input);
      expect((await claimNext(jobs(), f.clock, 1))?.input).toEqual(input);
      const withoutInline = { files: [{ stored: '0', name: 'a.pdf', size: 3 }, files[1]], params: {} };
      expect((await jobs().finish(finished.id, { status: 'canceled' }, f.clock))?.input).toEqual(
        withoutInline,
      );
      expect((await jobs().withdraw(withdrawn.id, f.clock))?.input).toEqual(withoutInline);
      await claimNext(jobs(), f.clock, 1);
      await claimNext(jobs(), f.clock, 1);
      await jobs().recover(1, { code: 'internal_error', message: 'x' }, f.clock);
      for (const ended of [finished, withdrawn, failing, sync])
        expect((await jobs().get(ended.id))?.input).toEqual(withoutInline);
      // Nothing queued or running now: a job stored running at once keeps them too.
      expect((await jobs().startNow(job('job_now'), f.clock, 1))?.input).toEqual(input);
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
      await claimNext(jobs(), f.clock, 1); // once: attempt 1
      await claimNext(jobs(), f.clock, 1); // twice: attempt 1
      await jobs().recover(2, { code: 'internal_error', message: 'x' }, f.clock);
      // Both went back to the queue; `twice` now starts its second attempt and is interrupted again.
      expect(await claimAll()).toEqual([once.id, twice.id, waiting.id]);
      await jobs().release(once.id, f.clock);
      const error = { code: 'internal_error', message: 'interrupted twice' } as const;
      const recovery = await (await f.again()).jobs.recover(2, error, f.clock + 7);
      expect(recovery).toEqual({ canceled: [], failed: [twice.id], requeued: [waiting.id] });
      // Queued again at the recovery: its next start waits from then.
      expect(await jobs().get(waiting.id)).toMatchObject({ queuedAt: f.clock + 7 });
      expect(await jobs().get(twice.id)).toMatchObject({ status: 'failed', error, attempts: 2 });
      expect(await jobs().get(once.id)).toMatchObject({ status: 'queued', attempts: 1 });
      expect(await jobs().get(sync.id)).toMatchObject({ status: 'canceled' });
      expect((await jobs().unfinishedIds()).sort()).toEqual([once.id, waiting.id].sort());
    });

    it('counts unfinished jobs by user, operation, mode and status', async () => {
      const [ada, bob] = [await user('ada'), await user('bob')];
      expect(await jobs().unfinishedCounts()).toEqual([]);
      await submit(ada);
      await submit(ada);
      await submit(ada, 'sync');
      await submit(bob);
      await claimNext(jobs(), f.clock, 1);
      const counts = await jobs().unfinishedCounts();
      const key = (row: { userId: number; mode: string; status: string }) =>
        `${row.userId} ${row.mode} ${row.status}`;
      expect(counts.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(
        [
          { userId: ada, plan: 'premium', operation: 'compress', mode: 'async', status: 'queued', count: 1 },
          { userId: ada, plan: 'premium', operation: 'compress', mode: 'async', status: 'running', count: 1 },
          { userId: ada, plan: 'premium', operation: 'compress', mode: 'sync', status: 'queued', count: 1 },
          { userId: bob, plan: 'premium', operation: 'compress', mode: 'async', status: 'queued', count: 1 },
        ].sort((a, b) => key(a).localeCompare(key(b))),
      );
    });

    it('withdraws a job only while it is queued', async () => {
      const ada = await user('ada');
      const [running, queued] = [await submit(ada), await submit(ada)];
      await claimNext(jobs(), f.clock, 1);
      expect(await jobs().withdraw(running.id, f.clock)).toBeUndefined();
      expect(await jobs().withdraw(queued.id, f.clock + 1)).toMatchObject({
        status: 'canceled',
        startedAt: null,
        finishedAt: f.clock + 1,
      });
      expect(await jobs().withdraw(queued.id, f.clock + 2)).toBeUndefined();
      // Queued again after it started (it handed its slot on): something of it ran.
      await jobs().release(running.id, f.clock + 3);
      expect(await jobs().get(running.id)).toMatchObject({ status: 'queued', queuedAt: f.clock + 3 });
      expect(await jobs().withdraw(running.id, f.clock + 3)).toBeUndefined();
    });

    it('tells how long the jobs that ended recently ran, by operation', async () => {
      const ada = await user('ada');
      const jobsRun = [await submit(ada), await submit(ada), await submit(ada)];
      for (const [index, job] of jobsRun.entries()) {
        const started = f.clock;
        await claimNext(jobs(), started, 1);
        f.clock += 100 * (index + 1);
        await jobs().finish(job.id, { status: 'succeeded', result: {} }, f.clock);
      }
      // The first ended before `since`; the others ran 200 and 300 ms.
      const since = f.clock - 500 + 1;
      expect(await jobs().recentDurations(since)).toEqual([{ operation: 'compress', meanMs: 250, count: 2 }]);
    });

    it('counts the start of a job run again after its worker died, while it runs', async () => {
      const ada = await user('ada');
      const [job, waiting] = [await submit(ada), await submit(ada)];
      await claimNext(jobs(), f.clock, 1);
      f.clock += 7;
      expect(await jobs().restart(job.id, f.clock)).toMatchObject({ attempts: 2, startedAt: f.clock });
      expect(await jobs().restart(waiting.id, f.clock)).toBeUndefined();
      expect(await jobs().get(waiting.id)).toMatchObject({ status: 'queued', attempts: 0 });
    });

    it('requeues running jobs their queue lost, and names those started their last time', async () => {
      const ada = await user('ada');
      const [spent, lost, recent, ended, queued] = [
        await submit(ada),
        await submit(ada),
        await submit(ada),
        await submit(ada),
        await submit(ada),
      ];
      await claimNext(jobs(), f.clock, 1); // spent
      await jobs().restart(spent.id, f.clock);
      await claimNext(jobs(), f.clock, 1); // lost
      await claimNext(jobs(), f.clock + 1_000, 1); // recent: started after the cut-off
      await claimNext(jobs(), f.clock, 1); // ended
      await jobs().finish(ended.id, { status: 'canceled' }, f.clock);
      expect(await jobs().runningIds(f.clock)).toEqual(expect.arrayContaining([spent.id, lost.id]));
      expect(await jobs().runningIds(f.clock)).toHaveLength(2);
      const all = [spent.id, lost.id, recent.id, ended.id, queued.id];
      expect(await jobs().requeue(all, f.clock, 2, f.clock + 5)).toEqual({
        requeued: [lost.id],
        spent: [spent.id],
      });
      expect(await jobs().get(spent.id)).toMatchObject({ status: 'running', attempts: 2 });
      expect(await jobs().get(lost.id)).toMatchObject({
        status: 'queued',
        attempts: 1,
        queuedAt: f.clock + 5,
      });
      expect(await jobs().get(recent.id)).toMatchObject({ status: 'running' });
      expect(await jobs().get(ended.id)).toMatchObject({ status: 'canceled' });
      expect(await claimNext(jobs(), f.clock, 1)).toMatchObject({ id: lost.id, attempts: 2 });
    });

    it('stores exactly up to the cap of unfinished jobs when submissions race (20 at a cap of 5)', async () => {
      const [ada, bob] = [await user('ada'), await user('bob')];
      await submit(ada, 'sync');
      const other = await f.again();
      // Half through a second handle, as submissions spread over processes.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? jobs() : other.jobs).create(
            { id: `job_race_${i}`, userId: ada, operation: 'compress', mode: 'async', input: INPUT },
            f.clock,
            5,
          ),
        ),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(4);
      const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
      expect(refusals).toHaveLength(16);
      for (const refusal of refusals) {
        expect(refusal).toBeInstanceOf(UnfinishedJobsCapReached);
        expect((refusal as UnfinishedJobsCapReached).unfinished).toBe(5);
      }
      expect(await jobs().countUnfinished(ada)).toBe(5);
      // Another user's cap is their own; an ended job frees a place.
      await expect(
        jobs().create(
          { id: 'job_bob', userId: bob, operation: 'compress', mode: 'async', input: INPUT },
          f.clock,
          5,
        ),
      ).resolves.toMatchObject({ status: 'queued' });
      await jobs().finish('job_race_0', { status: 'canceled' }, f.clock);
      await expect(
        jobs().create(
          { id: 'job_more', userId: ada, operation: 'compress', mode: 'async', input: INPUT },
          f.clock,
          5,
        ),
      ).resolves.toMatchObject({ status: 'queued' });
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
