// The embedded queue: the job queue contract in one process, and what only it does, a restart taking
// over what the stopped process left (openapi.yaml, "Jobs", Restarts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimNext } from './fair-share.js';
import { jobQueueContract } from './job-queue.contract.js';
import { INTERRUPTED } from './retention.js';
import { heldOperation, TestDeployment, until } from './test-deployment.js';

jobQueueContract({
  name: 'local',
  kind: 'local',
  start: (deployment, operation, log) => deployment.process(operation, log === undefined ? {} : { log }),
});

describe('LocalJobQueue', () => {
  let deployment: TestDeployment;

  beforeEach(async () => {
    deployment = await TestDeployment.open('local');
  });

  afterEach(async () => {
    await deployment.close();
  });

  it('gives a running job back to the queue on a graceful stop; the next start runs it', async () => {
    const held = heldOperation();
    const first = await deployment.process(held.operation);
    const job = await first.jobs.queue.add(deployment.submission('again'));
    await until(() => held.started.length === 1, 'the job started');
    await first.close(0);
    expect(await deployment.store.get(job.id)).toMatchObject({ status: 'queued', attempts: 0 });

    const second = await deployment.process(held.operation);
    await until(() => held.started.length === 2, 'the job started again');
    const ended = second.jobs.waiters.ended(job.id);
    held.release({ text: 'done' });
    expect((await ended)?.record).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      result: { text: 'done' },
    });
  });

  it('takes over after a crash: synchronous jobs canceled, running ones run again or, on their last attempt, failed', async () => {
    const { store, userId } = deployment;
    const input = { files: [], params: { tag: 'left' } };
    const make = async (id: string, mode: 'sync' | 'async') =>
      store.create({ id, userId, operation: 'ocr', mode, input }, Date.now());
    await make('job_sync', 'sync');
    await make('job_once', 'async');
    await make('job_twice', 'async');
    await claimNext(store, Date.now(), 1);
    await claimNext(store, Date.now(), 1);
    await claimNext(store, Date.now(), 1);
    await store.restart('job_twice', Date.now());
    const held = heldOperation();
    await deployment.process(held.operation);
    await until(() => held.started.length === 1, 'the interrupted job started again');
    expect(held.started).toEqual(['left']);
    expect(await store.get('job_sync')).toMatchObject({ status: 'canceled' });
    expect(await store.get('job_once')).toMatchObject({ status: 'running', attempts: 2 });
    expect(await store.get('job_twice')).toMatchObject({ status: 'failed', error: INTERRUPTED });
  });
});
