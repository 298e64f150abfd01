// The runner over the real SQLite store, job folders and output store, with test operations whose
// end each case decides: what the synchronous path answers, cancel, and a graceful stop giving a
// running job back to the queue for the next start (issue #13). The API and worker runners of issue
// #16 pass their jobs over BullMQ on the real Redis (skipped, saying why, without it). Order and
// state only, never timing.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Accounts } from '../accounts/index.js';
import { openSqliteAccounts } from '../accounts/sqlite/index.js';
import { runTool } from '../engines/run-tool.js';
import { InvalidInputError } from '../errors.js';
import { createLogger } from '../logger.js';
import type { Operation, Operations } from '../operations/index.js';
import { partsOf, type Role } from '../role.js';
import { openStorage, type Storage } from '../storage/index.js';
import { missingService, TEST_REDIS_URL, uniqueName } from '../test-services.js';
import { BullmqDispatch } from './bullmq-dispatch.js';
import type { JobStore } from './job-store.js';
import { INTERRUPTED, JobRunner, type JobTimings } from './runner.js';
import { StartedHereMarks } from './started-here-marks.js';

const redisMissing = await missingService('Redis');

/** An operation that starts, then ends when the test says (or fails when its signal aborts). */
function heldOperation() {
  const started: string[] = [];
  let release = (_value: unknown) => {};
  let onStop = () => {};
  /** Resolves when a run is stopped through its signal. */
  const stopped = new Promise<void>((resolve) => {
    onStop = resolve;
  });
  const operation: Operation = {
    name: 'ocr',
    run: (_inputs, params, work) =>
      new Promise((resolve, reject) => {
        started.push(String((params as { tag: string }).tag));
        release = resolve;
        work.signal.addEventListener(
          'abort',
          () => {
            onStop();
            reject(work.signal.reason);
          },
          { once: true },
        );
      }),
    resign: (result) => result,
  };
  return { operation, started, stopped, release: (value: unknown) => release(value) };
}

describe('JobRunner', () => {
  let dataDir: string;
  let accounts: Accounts;
  let storage: Storage;
  let runners: JobRunner[];
  let userId: number;
  /** The API and worker runners' queue (opened by the first of them) and its keys' prefix. */
  let redis: Redis | undefined;
  let prefix: string;
  const log = createLogger('quiet');

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-runner-'));
    accounts = openSqliteAccounts(dataDir);
    storage = await openStorage({ dataDir, signingSecret: undefined, log });
    userId = (await accounts.users.ensure('ada', 'premium')).user.id;
    runners = [];
    prefix = `${uniqueName('pdn-test')}:`;
  });

  afterEach(async () => {
    for (const runner of runners) await runner.close();
    if (redis !== undefined) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
      redis = undefined;
    }
    storage.close();
    await accounts.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** `overBullmq`: jobs pass over BullMQ, as on the shared backends (the embedded `all` runs its own). */
  async function runner(
    operation: Operation,
    role: Role = 'all',
    strandedMs?: number,
    overBullmq = role !== 'all',
    /** The store as the dispatch reads it (default: the runner's own). */
    dispatchStore: JobStore = accounts.jobs,
  ): Promise<JobRunner> {
    const operations = {
      compress: operation,
      merge: operation,
      split: operation,
      ocr: operation,
    } as Operations;
    const made = new JobRunner({
      store: accounts.jobs,
      operations,
      inputs: storage.inputs,
      workDirs: storage.workDirs,
      downloads: storage.downloads,
      slots: 1,
      log,
      parts: partsOf(role),
      ...(overBullmq ? { dispatch: bullmqDispatch(role, strandedMs, dispatchStore) } : {}),
    });
    runners.push(made);
    await made.start();
    return made;
  }

  function bullmqDispatch(role: Role, strandedMs: number | undefined, store: JobStore): BullmqDispatch {
    redis ??= new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    return new BullmqDispatch({
      redis,
      prefix,
      store,
      parts: partsOf(role),
      slots: 1,
      log,
      now: Date.now,
      ...(strandedMs === undefined ? {} : { strandedMs }),
    });
  }

  const submission = (tag: string) => ({ userId, operation: 'ocr' as const, files: [], params: { tag } });
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('answers the synchronous path with the operation’s own result, or throws its own error', async () => {
    const ok: Operation = { name: 'ocr', run: async () => ({ text: 'hi' }), resign: (result) => result };
    expect(await (await runner(ok)).run(submission('a'), new AbortController().signal)).toEqual({
      text: 'hi',
    });
    const refused = new InvalidInputError('not an image');
    const failing: Operation = { name: 'ocr', run: async () => Promise.reject(refused), resign: (r) => r };
    await expect((await runner(failing)).run(submission('b'), new AbortController().signal)).rejects.toBe(
      refused,
    );
    expect(await readdir(join(dataDir, 'jobs'))).toEqual([]);
  });

  it("tells a synchronous caller its job's timings, and gives a job nobody here waits for a line of its own (issue #18)", async () => {
    const lines: string[] = [];
    const timed: JobTimings[] = [];
    const twoTools: Operation = {
      name: 'ocr',
      run: async (_inputs, _params, work) => {
        for (const script of ['exit 0', 'exit 0'])
          await runTool('sh', ['-c', script], { cwd: work.workDir, timeoutMs: 10_000 });
        return { text: 'hi' };
      },
      resign: (result) => result,
    };
    const jobs = new JobRunner({
      store: accounts.jobs,
      operations: { ocr: twoTools } as Operations,
      inputs: storage.inputs,
      workDirs: storage.workDirs,
      downloads: storage.downloads,
      slots: 1,
      log: createLogger('info', (line) => lines.push(line)),
    });
    runners.push(jobs);
    await jobs.start();
    const caller = { log: createLogger('quiet'), timed: (timings: JobTimings) => timed.push(timings) };
    await jobs.run(submission('sync'), new AbortController().signal, caller);
    const want = {
      queue_ms: expect.any(Number),
      engine_ms: expect.any(Number),
      tools: { sh: { runs: 2, ms: expect.any(Number) } },
    };
    expect(timed).toEqual([want]);
    const { id } = await jobs.submit(submission('async'));
    const watched = jobs.watch(id, 10_000);
    await watched.ended;
    const ended = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'job ended');
    expect(ended).toEqual([
      expect.objectContaining({ job_id: id, operation: 'ocr', mode: 'async', outcome: 'succeeded', ...want }),
    ]);
  });

  it.skipIf(redisMissing !== undefined)(
    'answers a synchronous call taken by an API runner once a worker runner has run it (issue #16)',
    async () => {
      const api = await runner(
        { name: 'ocr', run: () => Promise.reject(new Error('not here')), resign: (r) => r },
        'api',
      );
      const ok: Operation = {
        name: 'ocr',
        run: async (_inputs, params) => {
          if ((params as { tag: string }).tag === 'bad') throw new InvalidInputError('not an image');
          return { text: 'from the worker' };
        },
        resign: (result) => result,
      };
      const answered = api.run(submission('a'), new AbortController().signal);
      // Judged from the start: the worker may end this one first, before `answered` is awaited, and a
      // rejection with nothing listening yet is an unhandled one.
      const refused = expect(api.run(submission('bad'), new AbortController().signal)).rejects.toMatchObject({
        status: 400,
        code: 'invalid_input',
        message: 'not an image',
      });
      await runner(ok, 'worker');
      expect(await answered).toEqual({ text: 'from the worker' });
      await refused;
    },
  );

  it.skipIf(redisMissing !== undefined)(
    'never hands a job whose failure it recorded (invalid_input) to a worker again',
    async () => {
      const connection = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
      const events = new QueueEvents('jobs', { connection, prefix: `${prefix}bull` });
      const started: string[] = [];
      events.on('active', ({ jobId }) => started.push(jobId));
      await events.waitUntilReady();
      try {
        const api = await runner(
          { name: 'ocr', run: () => Promise.reject(new Error('not here')), resign: (r) => r },
          'api',
        );
        const refusing: Operation = {
          name: 'ocr',
          run: async (_inputs, params) => {
            if ((params as { tag: string }).tag === 'bad') throw new InvalidInputError('not an image');
            return { text: 'fine' };
          },
          resign: (result) => result,
        };
        await runner(refusing, 'worker');
        await expect(api.run(submission('bad'), new AbortController().signal)).rejects.toMatchObject({
          code: 'invalid_input',
        });
        // One slot, one queue in order: a retry of the refused job would start before this one ends.
        expect(await api.run(submission('good'), new AbortController().signal)).toEqual({ text: 'fine' });
        const jobs = (await accounts.jobs.list(userId, { limit: 2 }))?.jobs ?? [];
        const [good, bad] = jobs.map((job) => job.id);
        while (!started.includes(good as string)) await settle();
        expect(started).toEqual([bad, good]);
        expect(jobs.map((job) => [job.status, job.attempts])).toEqual([
          ['succeeded', 1],
          ['failed', 1],
        ]);
      } finally {
        await events.close();
        await connection.quit();
      }
    },
  );

  it.skipIf(redisMissing !== undefined)(
    'stops the tools of a job running in a worker runner when an API runner cancels it',
    async () => {
      const api = await runner(
        { name: 'ocr', run: () => Promise.reject(new Error('not here')), resign: (r) => r },
        'api',
      );
      const held = heldOperation();
      await runner(held.operation, 'worker');
      const job = await api.submit(submission('long'));
      while (held.started.length === 0) await settle();
      expect((await api.cancel(job.id))?.status).toBe('canceled');
      await held.stopped;
      expect(await accounts.jobs.get(job.id)).toMatchObject({ status: 'canceled' });
    },
  );

  it.skipIf(redisMissing !== undefined)(
    'stops a job canceled while its worker runner was reading it from the store, before it ran there',
    async () => {
      const api = await runner(
        { name: 'ocr', run: () => Promise.reject(new Error('not here')), resign: (r) => r },
        'api',
      );
      // The worker's dispatch reads the job while it is running, and hands on what it read only once
      // the cancel has reached the worker: the cancel found nothing to stop there.
      let read = () => {};
      let handOn = () => {};
      const wasRead = new Promise<void>((resolve) => {
        read = resolve;
      });
      const handedOn = new Promise<void>((resolve) => {
        handOn = resolve;
      });
      const slowReads = new Proxy(accounts.jobs, {
        get(target, name) {
          if (name !== 'get') {
            const value = Reflect.get(target, name);
            return typeof value === 'function' ? value.bind(target) : value;
          }
          return async (id: string) => {
            const record = await target.get(id);
            read();
            await handedOn;
            return record;
          };
        },
      });
      const held = heldOperation();
      const worker = await runner(held.operation, 'worker', undefined, true, slowReads);
      const heard = new Promise<void>((resolve) => {
        const stop = worker.stop.bind(worker);
        worker.stop = (id) => {
          stop(id);
          resolve();
        };
      });
      const job = await api.submit(submission('canceled while read'));
      await wasRead;
      expect((await api.cancel(job.id))?.status).toBe('canceled');
      await heard;
      handOn();
      // Its attempt there ends without the operation's end (held): stopped, not left running. Left
      // running, the worker's graceful stop waits for it, past this test's timeout.
      await worker.close(60_000);
      expect(held.started).toEqual([]);
      expect(await accounts.jobs.get(job.id)).toMatchObject({ status: 'canceled' });
    },
  );

  it.skipIf(redisMissing !== undefined)(
    'records a job BullMQ gave up on (its workers died on every attempt) failed, and answers its caller',
    async () => {
      const api = await runner(
        { name: 'ocr', run: () => Promise.reject(new Error('not here')), resign: (r) => r },
        'api',
      );
      // Judged from the start, so its rejection is never one with nothing listening yet.
      const answered = expect(
        api.run(submission('lost'), new AbortController().signal),
      ).rejects.toMatchObject({
        status: 500,
        code: 'internal_error',
      });
      let jobs = await accounts.jobs.list(userId, { limit: 1 });
      while (jobs?.jobs.length === 0) {
        await settle();
        jobs = await accounts.jobs.list(userId, { limit: 1 });
      }
      const id = jobs?.jobs[0]?.id as string;
      await api.interruptedEverywhere(id);
      await answered;
      expect(await accounts.jobs.get(id)).toMatchObject({ status: 'failed', error: INTERRUPTED });
    },
  );

  it.skipIf(redisMissing !== undefined)(
    'runs a job the store marked running that no BullMQ job carries (its dispatcher died before adding it)',
    async () => {
      const input = { files: [], params: { tag: 'stranded' } };
      await accounts.jobs.create(
        { id: 'job_stranded', userId, operation: 'ocr', mode: 'async', input },
        Date.now(),
      );
      expect(await accounts.jobs.claimNext(Date.now())).toMatchObject({ id: 'job_stranded', attempts: 1 });
      const held = heldOperation();
      await runner(held.operation, 'worker');
      const api = await runner(held.operation, 'api', 0);
      while (held.started.length === 0) await settle();
      held.release({ text: 'found' });
      const watch = api.watch('job_stranded', 60_000);
      if ((await accounts.jobs.get('job_stranded'))?.status !== 'succeeded') await watch.ended;
      watch.stop();
      expect(held.started).toEqual(['stranded']);
      // The lost dispatch counted as an attempt: a job lost again and again ends failed, not looping.
      expect(await accounts.jobs.get('job_stranded')).toMatchObject({ status: 'succeeded', attempts: 2 });
    },
  );

  describe.skipIf(redisMissing !== undefined)(
    'a synchronous call in an `all` runner over BullMQ (issue #15)',
    () => {
      /** A one-file call whose operation answers the path its input was read from. */
      async function call(jobs: JobRunner) {
        const path = join(dataDir, 'upload.pdf');
        await writeFile(path, '%PDF-1.7 upload');
        const files = [{ path, name: 'a.pdf', size: 15 }];
        const answer = await jobs.run({ ...submission('here'), files }, new AbortController().signal);
        return { path, readFrom: (answer as { readFrom: string }).readFrom };
      }
      const readFrom: Operation = {
        name: 'ocr',
        run: async (inputs) => ({ readFrom: inputs[0]?.path }),
        resign: (result) => result,
      };

      it('runs at once on the upload where it is while nothing is queued, else through the queue', async () => {
        const jobs = await runner(readFrom, 'all', undefined, true);
        const atOnce = await call(jobs);
        expect(atOnce.readFrom).toBe(atOnce.path);
        // Queued behind it, not yet fed to BullMQ: the call waits its turn, its input kept in the input store.
        const input = { files: [], params: { tag: 'queued' } };
        await accounts.jobs.create(
          { id: 'job_queued', userId, operation: 'ocr', mode: 'async', input },
          Date.now(),
        );
        const queued = await call(jobs);
        expect(queued.readFrom).not.toBe(queued.path);
        const records = (await accounts.jobs.list(userId, { limit: 3 }))?.jobs ?? [];
        expect(records.map((job) => [job.status, job.attempts])).toEqual([
          ['succeeded', 1],
          ['succeeded', 1],
          ['succeeded', 1],
        ]);
      });

      it('is stopped when another runner cancels it', async () => {
        const held = heldOperation();
        const jobs = await runner(held.operation, 'all', undefined, true);
        const api = await runner(held.operation, 'api');
        const answered = expect(
          jobs.run(submission('canceled elsewhere'), new AbortController().signal),
        ).rejects.toThrow();
        while (held.started.length === 0) await settle();
        const [job] = (await accounts.jobs.list(userId, { limit: 1 }))?.jobs ?? [];
        expect((await api.cancel(job?.id ?? ''))?.status).toBe('canceled');
        await held.stopped;
        await answered;
      });

      it('is left to its runner while that lives, and canceled once it is gone', async () => {
        redis ??= new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
        const [living, gone] = [
          new StartedHereMarks(redis, `${prefix}bull:jobs:`),
          new StartedHereMarks(redis, `${prefix}bull:jobs:`),
        ];
        await living.start();
        try {
          for (const [id, marks] of [
            ['job_living', living],
            ['job_gone', gone],
          ] as const) {
            await marks.mark(id);
            const input = { files: [], params: { tag: id } };
            await accounts.jobs.startNow({ id, userId, operation: 'ocr', mode: 'sync', input }, Date.now());
          }
          // An API runner looks for jobs nothing carries at start: every running one counts (stranded after 0 ms).
          const api = await runner(heldOperation().operation, 'api', 0);
          const watch = api.watch('job_gone', 60_000);
          if ((await accounts.jobs.get('job_gone'))?.status === 'running') await watch.ended;
          watch.stop();
          expect(await accounts.jobs.get('job_living')).toMatchObject({ status: 'running' });
          expect(await accounts.jobs.get('job_gone')).toMatchObject({ status: 'canceled' });
        } finally {
          await living.stop();
        }
      });
    },
  );

  it('cancels a synchronous job whose caller goes away, and a queued job before it starts', async () => {
    const held = heldOperation();
    const jobs = await runner(held.operation);
    const caller = new AbortController();
    const waiting = jobs.run(submission('first'), caller.signal);
    while (held.started.length === 0) await settle();
    const queued = await jobs.submit(submission('second'));
    expect((await jobs.cancel(queued.id))?.status).toBe('canceled');
    caller.abort(new Error('client gone'));
    await expect(waiting).rejects.toThrow('client gone');
    expect(held.started).toEqual(['first']);
    expect((await accounts.jobs.list(userId, { limit: 10 }))?.jobs.map((job) => job.status)).toEqual([
      'canceled',
      'canceled',
    ]);
    expect(await readdir(join(dataDir, 'jobs'))).toEqual([]);
  });

  it.skipIf(redisMissing !== undefined)(
    'lets a worker runner’s running job finish within the grace period on stop, and starts no new one',
    async () => {
      const held = heldOperation();
      const worker = await runner(held.operation, 'worker');
      const api = await runner(held.operation, 'api');
      const running = await api.submit(submission('running'));
      while (held.started.length === 0) await settle();
      const closed = worker.close(60_000);
      const queued = await api.submit(submission('queued'));
      held.release({ text: 'finished' });
      await closed;
      expect(await accounts.jobs.get(running.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
      // Handed to BullMQ by the API runner, but never started by the stopping worker.
      expect((await accounts.jobs.get(queued.id))?.finishedAt).toBeNull();
      expect(held.started).toEqual(['running']);
    },
  );

  it('gives a running job back to the queue on a graceful stop; the next start runs it', async () => {
    const held = heldOperation();
    const first = await runner(held.operation);
    const job = await first.submit(submission('again'));
    while (held.started.length === 0) await settle();
    await first.close();
    expect(await accounts.jobs.get(job.id)).toMatchObject({ status: 'queued', attempts: 0 });

    const second = await runner(held.operation);
    while (held.started.length < 2) await settle();
    held.release({ text: 'done' });
    const watch = second.watch(job.id, 60_000);
    if ((await accounts.jobs.get(job.id))?.status !== 'succeeded') await watch.ended;
    watch.stop();
    expect(await accounts.jobs.get(job.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      result: { text: 'done' },
    });
  });
});
