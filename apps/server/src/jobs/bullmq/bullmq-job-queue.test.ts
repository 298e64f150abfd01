// The queue over BullMQ on the real Redis (skipped, saying why, without it): the job queue contract with
// an API process and a worker, and with one process doing both; then what only BullMQ's queue does:
// failures never run again, cancels reaching a worker mid-read, jobs whose workers all died, jobs
// nobody carries, synchronous calls run where they came in, and a worker's grace on stop.
import { writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { createLogger } from '../../logger.js';
import type { Operation } from '../../operations/index.js';
import { missingService, TEST_REDIS_URL } from '../../test-services.js';
import { claimNext } from '../fair-share.js';
import { jobQueueContract } from '../job-queue.contract.js';
import type { JobStore } from '../job-store.js';
import type { OpenedJobs } from '../open-jobs.js';
import { INTERRUPTED } from '../retention.js';
import { callJob } from '../sync-call.js';
import { heldOperation, settle, TestDeployment, until } from '../test-deployment.js';
import { type FedJob, Feeder } from './feeder.js';
import { StartedHereMarks } from './started-here-marks.js';

const redisMissing = await missingService('Redis');

const nowhere: Operation = {
  name: 'ocr',
  run: () => Promise.reject(new Error('not here')),
  resign: (r) => r,
};

describe.skipIf(redisMissing !== undefined)('over BullMQ', () => {
  jobQueueContract({
    name: 'BullMQ, an API process and a worker',
    kind: 'bullmq',
    async start(deployment, operation, log) {
      const options = log === undefined ? {} : { log };
      await deployment.process(operation, { ...options, role: 'worker' });
      return deployment.process(nowhere, { ...options, role: 'api' });
    },
  });

  jobQueueContract({
    name: 'BullMQ, one process taking calls and running jobs',
    kind: 'bullmq',
    start: (deployment, operation, log) => deployment.process(operation, log === undefined ? {} : { log }),
  });

  describe('BullmqJobQueue', () => {
    let deployment: TestDeployment;

    beforeEach(async () => {
      deployment = await TestDeployment.open('bullmq');
    });

    afterEach(async () => {
      await deployment.close();
    });

    const call = (
      process: OpenedJobs,
      tag: string,
      files: { path: string; name: string; size: number }[] = [],
    ) => {
      const { queue, waiters, views } = process.jobs;
      const { mode: _, ...submission } = { ...deployment.submission(tag, 'sync'), files };
      const deps = { queue, waiters, views, log: createLogger('quiet'), maxWaitMs: 600_000 };
      return callJob(deps, submission, new AbortController().signal);
    };

    it('never hands a job whose failure it recorded (invalid_input) to a worker again', async () => {
      const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
      const events = new QueueEvents('jobs', { connection, prefix: `${deployment.prefix}bull` });
      const started: string[] = [];
      events.on('active', ({ jobId }) => started.push(jobId));
      await events.waitUntilReady();
      try {
        const refusing: Operation = {
          name: 'ocr',
          run: async (_inputs, params) => {
            if ((params as { tag: string }).tag === 'bad') throw new InvalidInputError('not an image');
            return { text: 'fine' };
          },
          resign: (result) => result,
        };
        await deployment.process(refusing, { role: 'worker' });
        const api = await deployment.process(nowhere, { role: 'api' });
        await expect(call(api, 'bad')).rejects.toMatchObject({ code: 'invalid_input' });
        // One slot, one queue in order: a retry of the refused job would start before this one ends.
        expect(await call(api, 'good')).toEqual({ text: 'fine' });
        const jobs = (await deployment.store.list(deployment.userId, { limit: 2 }))?.jobs ?? [];
        const [good, bad] = jobs.map((job) => job.id);
        await until(() => started.includes(good as string), 'BullMQ said the second job started');
        expect(started).toEqual([bad, good]);
        expect(jobs.map((job) => [job.status, job.attempts])).toEqual([
          ['succeeded', 1],
          ['failed', 1],
        ]);
      } finally {
        await events.close();
        await connection.quit();
      }
    });

    it('feeds a synchronous call’s job as it stores it while a slot is free and nothing is queued', async () => {
      // What the API process asks the store of the queue, from its first feed on.
      const asked: string[] = [];
      const watched = new Proxy(deployment.store, {
        get(target, name) {
          const value = Reflect.get(target, name);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (name === 'usersWithWork' || name === 'claimOldest') asked.push(name);
            return value.apply(target, args);
          };
        },
      }) as JobStore;
      const held = heldOperation();
      await deployment.process(held.operation, { role: 'worker' });
      const api = await deployment.process(nowhere, { role: 'api', store: watched });
      await until(() => asked.length > 0, 'the first feed read the queue');
      asked.length = 0;
      const first = call(api, 'at once');
      await until(() => held.started.length === 1, 'the first call runs');
      expect(asked).toEqual([]);
      // The worker's one slot is taken: the next call queues, and is fed in the fair order when it frees.
      const second = call(api, 'queued');
      await until(async () => (await deployment.store.countUnfinished(deployment.userId)) === 2, 'stored');
      held.release({ text: 'first' });
      expect(await first).toEqual({ text: 'first' });
      await until(() => held.started.length === 2, 'the second call runs');
      expect(asked).toContain('claimOldest');
      held.release({ text: 'second' });
      expect(await second).toEqual({ text: 'second' });
    });

    it('takes a job canceled while it waited in BullMQ out of it, so that no worker runs it', async () => {
      const { redis, prefix, store } = deployment;
      // A worker's slot with nobody behind it yet: the job is fed, and waits in BullMQ.
      await redis.zadd(`${prefix}bull:jobs:workers`, Date.now() + 30_000, 'absent:1');
      const api = await deployment.process(nowhere, { role: 'api' });
      const job = await api.jobs.queue.add(deployment.submission('canceled while fed'));
      await until(async () => (await redis.exists(`${prefix}bull:jobs:${job.id}`)) === 1, 'the job is fed');
      expect((await api.jobs.queue.cancel(job.id))?.status).toBe('canceled');
      expect(await redis.exists(`${prefix}bull:jobs:${job.id}`)).toBe(0);
      // A worker starting now never heard of the cancel: it runs the next job fed, and only that one.
      const held = heldOperation();
      await deployment.process(held.operation, { role: 'worker' });
      const next = await api.jobs.queue.add(deployment.submission('next'));
      await until(() => held.started.length > 0, 'the next job runs');
      held.release({ text: 'done' });
      expect((await api.jobs.waiters.ended(next.id))?.record?.status).toBe('succeeded');
      expect(held.started).toEqual(['next']);
      expect(await store.get(job.id)).toMatchObject({ status: 'canceled' });
    });

    it('queues a job it could not hand to BullMQ at once, leaving nothing running in the store', async () => {
      const { redis, prefix, store, userId } = deployment;
      // A queue whose Redis is away (nothing listens where it points): the add fails after the store
      // marked the job running, while the feeding lock, on the deployment's Redis, works.
      const away = createServer();
      await new Promise<void>((resolve) => away.listen(0, '127.0.0.1', resolve));
      const { port } = away.address() as AddressInfo;
      await new Promise((resolve) => away.close(resolve));
      const connection = new Redis({
        port,
        lazyConnect: true,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      });
      const queue = new Queue<FedJob>('jobs', { connection, prefix: `${prefix}bull` });
      queue.on('error', () => {});
      const lockKey = `${prefix}feeding`;
      const feeder = new Feeder({
        redis,
        queue,
        lockKey,
        store,
        marks: new StartedHereMarks(redis, prefix),
        capacity: async () => 1,
        log: createLogger('quiet'),
        now: Date.now,
        ends: { interruptedEverywhere: async () => {}, orphaned: async () => {} },
      });
      const job = { id: 'job_unfed', userId, operation: 'merge' as const, mode: 'sync' as const };
      const told = await feeder.startAtOnce({ ...job, input: { files: [], params: {} } });
      expect(told).toMatchObject({ status: 'queued', attempts: 0 });
      expect(await store.get('job_unfed')).toMatchObject({ status: 'queued', attempts: 0 });
      // The feeding lock is let go, for the feed that will hand the job on once Redis takes it.
      expect(await redis.get(lockKey)).toBeNull();
      await queue.close();
    });

    it('lets go of the feeding lock without deleting the one another feeder took after it expired', async () => {
      const { redis, prefix, store, userId } = deployment;
      const lockKey = `${prefix}feeding`;
      const queue = new Queue<FedJob>('jobs', { connection: redis.duplicate(), prefix: `${prefix}bull` });
      const feeder = new Feeder({
        redis,
        queue,
        lockKey,
        lockMs: 200,
        store,
        marks: new StartedHereMarks(redis, prefix),
        // Slower than the lock's life: meanwhile the lock expires and another feeder takes it.
        capacity: async () => {
          await until(async () => (await redis.get(lockKey)) === null, 'the lock expires');
          await redis.set(lockKey, 'another feeder');
          return 1;
        },
        log: createLogger('quiet'),
        now: Date.now,
        ends: { interruptedEverywhere: async () => {}, orphaned: async () => {} },
      });
      const job = { id: 'job_slow', userId, operation: 'merge' as const, mode: 'sync' as const };
      await feeder.startAtOnce({ ...job, input: { files: [], params: {} } });
      expect(await redis.get(lockKey)).toBe('another feeder');
      await queue.close();
    });

    it('records a job whose attempts were all lost failed, and answers its caller', async () => {
      const { store, userId } = deployment;
      const input = { files: [], params: { tag: 'lost' } };
      await store.create({ id: 'job_lost', userId, operation: 'ocr', mode: 'async', input }, Date.now());
      await claimNext(store, Date.now(), 1);
      await store.restart('job_lost', Date.now());
      // An API process looks for jobs nothing carries at start: every running one counts (stranded after 0 ms).
      const api = await deployment.process(nowhere, { role: 'api', strandedMs: 0 });
      const ended = await api.jobs.waiters.ended('job_lost');
      expect(ended?.record).toMatchObject({ status: 'failed', error: INTERRUPTED });
    });

    it('runs a job the store marked running that no BullMQ job carries (its feeder died before adding it)', async () => {
      const { store, userId } = deployment;
      const input = { files: [], params: { tag: 'stranded' } };
      await store.create({ id: 'job_stranded', userId, operation: 'ocr', mode: 'async', input }, Date.now());
      expect(await claimNext(store, Date.now(), 1)).toMatchObject({ id: 'job_stranded', attempts: 1 });
      const held = heldOperation();
      await deployment.process(held.operation, { role: 'worker' });
      const api = await deployment.process(held.operation, { role: 'api', strandedMs: 0 });
      await until(() => held.started.length === 1, 'the stranded job started');
      held.release({ text: 'found' });
      const ended = await api.jobs.waiters.ended('job_stranded');
      expect(held.started).toEqual(['stranded']);
      // The lost dispatch counted as an attempt: a job lost again and again ends failed, not looping.
      expect(ended?.record).toMatchObject({ status: 'succeeded', attempts: 2 });
    });

    it('lets a worker’s running job finish within the grace period on stop, and starts no new one', async () => {
      const held = heldOperation();
      const worker = await deployment.process(held.operation, { role: 'worker' });
      const api = await deployment.process(held.operation, { role: 'api' });
      const running = await api.jobs.queue.add(deployment.submission('running'));
      await until(() => held.started.length === 1, 'the job started');
      const closed = worker.close(60_000);
      const queued = await api.jobs.queue.add(deployment.submission('queued'));
      held.release({ text: 'finished' });
      await closed;
      expect(await deployment.store.get(running.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
      // Handed to BullMQ by the API process, but never started by the stopping worker.
      expect((await deployment.store.get(queued.id))?.finishedAt).toBeNull();
      expect(held.started).toEqual(['running']);
    });

    describe('a synchronous call in a process that takes calls and runs jobs', () => {
      /** A one-file call whose operation answers the path its input was read from. */
      async function upload() {
        const path = join(deployment.dataDir, 'upload.pdf');
        await writeFile(path, '%PDF-1.7 upload');
        return { path, files: [{ path, name: 'a.pdf', size: 15 }] };
      }
      const readFrom: Operation = {
        name: 'ocr',
        run: async (inputs) => ({ readFrom: inputs[0]?.path }),
        resign: (result) => result,
      };

      it('runs at once on the upload where it is while nothing is queued, else through the queue', async () => {
        const process = await deployment.process(readFrom);
        const atOnce = await upload();
        expect(await call(process, 'here', atOnce.files)).toEqual({ readFrom: atOnce.path });
        // Queued behind it, not yet fed to BullMQ: the call waits its turn, its input kept in the input store.
        const input = { files: [], params: { tag: 'queued' } };
        await deployment.store.create(
          { id: 'job_queued', userId: deployment.userId, operation: 'ocr', mode: 'async', input },
          Date.now(),
        );
        const queued = await upload();
        expect(await call(process, 'queued', queued.files)).not.toEqual({ readFrom: queued.path });
        const records = (await deployment.store.list(deployment.userId, { limit: 3 }))?.jobs ?? [];
        expect(records.map((job) => [job.status, job.attempts])).toEqual([
          ['succeeded', 1],
          ['succeeded', 1],
          ['succeeded', 1],
        ]);
      });

      it('is stopped when another process cancels it', async () => {
        const held = heldOperation();
        const process = await deployment.process(held.operation);
        const api = await deployment.process(held.operation, { role: 'api' });
        const answered = expect(call(process, 'canceled elsewhere')).rejects.toThrow();
        await until(() => held.started.length === 1, 'the call started');
        const [job] = (await deployment.store.list(deployment.userId, { limit: 1 }))?.jobs ?? [];
        expect((await api.jobs.queue.cancel(job?.id ?? ''))?.status).toBe('canceled');
        await held.stopped;
        await answered;
      });

      it('is left to its process while that lives, and canceled once it is gone', async () => {
        const [living, gone] = [
          new StartedHereMarks(deployment.redis, `${deployment.prefix}bull:jobs:`),
          new StartedHereMarks(deployment.redis, `${deployment.prefix}bull:jobs:`),
        ];
        await living.start();
        try {
          for (const [id, marks] of [
            ['job_living', living],
            ['job_gone', gone],
          ] as const) {
            await marks.mark(id);
            const input = { files: [], params: { tag: id } };
            await deployment.store.startNow(
              { id, userId: deployment.userId, operation: 'ocr', mode: 'sync', input },
              Date.now(),
              2,
            );
          }
          const api = await deployment.process(heldOperation().operation, { role: 'api', strandedMs: 0 });
          expect((await api.jobs.waiters.ended('job_gone'))?.record).toMatchObject({ status: 'canceled' });
          await settle();
          expect(await deployment.store.get('job_living')).toMatchObject({ status: 'running' });
        } finally {
          await living.stop();
        }
      });
    });
  });
});
