// The job queue contract (STYLE.md 16): what every JobQueue, with its workers, does for the processes
// that take calls, whatever carries the jobs between them. Run by local-job-queue.test.ts (one process)
// and bullmq/bullmq-job-queue.test.ts (an API process and a worker, and one process doing both), over
// the real SQLite store and data folder (and Redis), with test operations whose end each case decides.
// Order and state only, never timing.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTool } from '../engines/run-tool.js';
import { InvalidInputError } from '../errors.js';
import { createLogger } from '../logger.js';
import type { Operation } from '../operations/index.js';
import { serviceUnavailable } from '../unreachable.js';
import type { OpenedJobs } from './open-jobs.js';
import { callJob, NoSlotInTime } from './sync-call.js';
import { heldOperation, type QueueKind, TestDeployment, until } from './test-deployment.js';

/** How a deployment's processes are laid out: the process callers talk to is `api`. */
export interface Topology {
  name: string;
  kind: QueueKind;
  /** Starts the deployment's processes, each running `operation`; answers the one that takes calls. */
  start(
    deployment: TestDeployment,
    operation: Operation,
    log?: ReturnType<typeof createLogger>,
  ): Promise<OpenedJobs>;
}

export function jobQueueContract(topology: Topology): void {
  describe(`JobQueue (${topology.name})`, () => {
    let deployment: TestDeployment;

    beforeEach(async () => {
      deployment = await TestDeployment.open(topology.kind);
    });

    afterEach(async () => {
      await deployment.close();
    });

    const call = (
      api: OpenedJobs,
      tag: string,
      signal = new AbortController().signal,
      maxWaitMs = 600_000,
    ) => {
      const { queue, waiters, views } = api.jobs;
      const { mode: _, ...submission } = deployment.submission(tag, 'sync');
      return callJob({ queue, waiters, views, log: createLogger('quiet'), maxWaitMs }, submission, signal);
    };

    it("answers a synchronous call with its operation's result, or with its error", async () => {
      const operation: Operation = {
        name: 'ocr',
        run: async (_inputs, params) => {
          if ((params as { tag: string }).tag === 'bad') throw new InvalidInputError('not an image');
          return { text: 'hi' };
        },
        resign: (result) => result,
      };
      const api = await topology.start(deployment, operation);
      expect(await call(api, 'good')).toEqual({ text: 'hi' });
      await expect(call(api, 'bad')).rejects.toMatchObject({
        status: 400,
        code: 'invalid_input',
        message: 'not an image',
      });
      const jobs = (await deployment.store.list(deployment.userId, { limit: 2 }))?.jobs ?? [];
      expect(jobs.map((job) => [job.mode, job.status, job.attempts])).toEqual([
        ['sync', 'failed', 1],
        ['sync', 'succeeded', 1],
      ]);
    });

    it('runs a job on its stored inputs, tells whoever waits, and logs where its time went', async () => {
      const lines: string[] = [];
      const read: Operation = {
        name: 'ocr',
        run: async (inputs, _params, work) => {
          for (const script of ['exit 0', 'exit 0'])
            await runTool('sh', ['-c', script], { cwd: work.workDir, timeoutMs: 10_000 });
          return { sizes: inputs.map((input) => input.size) };
        },
        resign: (result) => result,
      };
      const api = await topology.start(
        deployment,
        read,
        createLogger('info', (line) => lines.push(line)),
      );
      const path = join(deployment.dataDir, 'upload.pdf');
      await writeFile(path, '%PDF-1.7 upload');
      const submission = {
        ...deployment.submission('stored'),
        files: [{ path, name: 'a.pdf', size: 15 }],
        requestId: 'req-stored-0001',
      };
      const queued = await api.jobs.queue.add(submission);
      expect(queued).toMatchObject({ status: 'queued', mode: 'async', requestId: 'req-stored-0001' });
      const ended = await api.jobs.waiters.ended(submission.id);
      expect(ended?.record).toMatchObject({ status: 'succeeded', attempts: 1, result: { sizes: [15] } });
      expect(api.jobs.views.view(ended?.record ?? queued)).toMatchObject({
        status: 'succeeded',
        result: { sizes: [15] },
      });
      // Its inputs went with it.
      await until(
        async () => (await readdir(join(deployment.dataDir, 'jobs'))).length === 0,
        'inputs removed',
      );
      await until(() => lines.some((line) => line.includes('"job ended"')), 'the job ended line');
      const line = JSON.parse(lines.find((text) => text.includes('"job ended"')) ?? '{}');
      expect(line).toMatchObject({
        job_id: submission.id,
        request_id: 'req-stored-0001',
        outcome: 'succeeded',
        mode: 'async',
        queue_ms: expect.any(Number),
        engine_ms: expect.any(Number),
        tools: { sh: { runs: 2, ms: expect.any(Number) } },
      });
    });

    it('records an end the store could not take while it was away, once it is back, and tells the waiter', async () => {
      const held = heldOperation();
      const api = await topology.start(deployment, held.operation);
      const { store } = deployment;
      const finish = store.finish.bind(store);
      let refusals = 2;
      store.finish = (...args) => {
        if (refusals === 0) return finish(...args);
        refusals -= 1;
        return Promise.reject(serviceUnavailable('database', new Error('Connection terminated')));
      };
      const answer = call(api, 'kept');
      await until(() => held.started.length === 1, 'the call started');
      held.release({ text: 'kept' });
      expect(await answer).toEqual({ text: 'kept' });
      expect(refusals).toBe(0);
      const jobs = (await store.list(deployment.userId, { limit: 2 }))?.jobs ?? [];
      expect(jobs.map((job) => [job.status, job.attempts])).toEqual([['succeeded', 1]]);
    });

    it('cancels a queued job before it starts, and stops the tools of a running one', async () => {
      const held = heldOperation();
      const api = await topology.start(deployment, held.operation);
      const running = await api.jobs.queue.add(deployment.submission('running'));
      await until(() => held.started.length === 1, 'the first job started');
      const queued = await api.jobs.queue.add(deployment.submission('queued'));
      const toldQueued = api.jobs.waiters.ended(queued.id);
      expect((await api.jobs.queue.cancel(queued.id))?.status).toBe('canceled');
      expect((await toldQueued)?.record?.status).toBe('canceled');
      expect((await api.jobs.queue.cancel(running.id))?.status).toBe('canceled');
      await held.stopped;
      expect(await deployment.store.get(running.id)).toMatchObject({ status: 'canceled' });
      // Canceling an ended job changes nothing.
      expect((await api.jobs.queue.cancel(running.id))?.status).toBe('canceled');
      expect(held.started).toEqual(['running']);
    });

    it('cancels a synchronous call whose caller went away, and keeps none of its files', async () => {
      const held = heldOperation();
      const api = await topology.start(deployment, held.operation);
      const caller = new AbortController();
      const waiting = call(api, 'gone', caller.signal);
      await until(() => held.started.length === 1, 'the call started');
      caller.abort(new Error('client gone'));
      await expect(waiting).rejects.toThrow('client gone');
      await held.stopped;
      await until(
        async () =>
          (await deployment.store.list(deployment.userId, { limit: 1 }))?.jobs[0]?.status === 'canceled',
        'the call canceled',
      );
      await until(
        async () => (await readdir(join(deployment.dataDir, 'jobs'))).length === 0,
        'its files removed',
      );
    });

    it('withdraws a synchronous call that finds no slot within its bound: not run, its job never started', async () => {
      const held = heldOperation();
      const api = await topology.start(deployment, held.operation);
      await api.jobs.queue.add(deployment.submission('holding the slot'));
      await until(() => held.started.length === 1, 'the slot taken');
      await expect(call(api, 'no slot', undefined, 50)).rejects.toBeInstanceOf(NoSlotInTime);
      const [withdrawn] = (await deployment.store.list(deployment.userId, { limit: 1 }))?.jobs ?? [];
      expect(withdrawn).toMatchObject({ mode: 'sync', status: 'canceled', startedAt: null });
      held.release({ text: 'done' });
      expect(held.started).toEqual(['holding the slot']);
      expect(await api.jobs.queue.capacity()).toBe(1);
    });

    it('starts jobs in the fair order: another user waits behind no more than one job of the first', async () => {
      const held = heldOperation();
      const api = await topology.start(deployment, held.operation);
      const bob = (await deployment.db.users.ensure('bob', 'premium')).user.id;
      await api.jobs.queue.add(deployment.submission('ada 1'));
      await until(() => held.started.length === 1, 'the first job started');
      for (const tag of ['ada 2', 'ada 3']) await api.jobs.queue.add(deployment.submission(tag));
      await api.jobs.queue.add({ ...deployment.submission('bob 1'), userId: bob });
      for (let ended = 1; ended <= 3; ended += 1) {
        held.release({ text: 'done' });
        await until(() => held.started.length === ended + 1, `job ${ended + 1} started`);
      }
      held.release({ text: 'done' });
      expect(held.started).toEqual(['ada 1', 'bob 1', 'ada 2', 'ada 3']);
    });

    it("hands a long job's slot on between its units when another user waits; its next turn goes on from the work it kept", async () => {
      const ran: string[] = [];
      let openGate = () => {};
      const gate = new Promise<void>((resolve) => {
        openGate = resolve;
      });
      const operation: Operation = {
        name: 'ocr',
        run: async (_inputs, params, work) => {
          const { tag } = params as { tag: string };
          if (tag !== 'ada') {
            ran.push(tag);
            return { tag };
          }
          const { turns } = work;
          if (turns === undefined) throw new Error('a job without turns');
          const keptDir = await turns.keptDir();
          const kept = await readdir(keptDir);
          for (let unit = 1; unit <= 3; unit += 1) {
            if (kept.includes(`unit-${unit}`)) continue;
            if (unit === 1) await gate;
            ran.push(`ada ${unit}`);
            await writeFile(join(keptDir, `unit-${unit}`), String(unit));
            if (unit < 3) await turns.between();
          }
          return { kept: (await readdir(keptDir)).sort() };
        },
        resign: (result) => result,
      };
      const api = await topology.start(deployment, operation);
      const bob = (await deployment.db.users.ensure('bob', 'premium')).user.id;
      const ada = await api.jobs.queue.add(deployment.submission('ada'));
      await until(async () => (await deployment.store.get(ada.id))?.status === 'running', 'ada started');
      const bobs = await api.jobs.queue.add({ ...deployment.submission('bob'), userId: bob });
      openGate();
      const ended = await api.jobs.waiters.ended(ada.id);
      expect(ended?.record).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        result: { kept: ['unit-1', 'unit-2', 'unit-3'] },
      });
      expect(ran).toEqual(['ada 1', 'bob', 'ada 2', 'ada 3']);
      expect((await api.jobs.waiters.ended(bobs.id))?.record?.status).toBe('succeeded');
    });
  });
}
