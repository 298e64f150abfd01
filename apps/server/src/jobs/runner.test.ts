// The runner over the real SQLite store, job folders and output store, with test operations whose
// end each case decides: what the synchronous path answers, cancel, and a graceful stop giving a
// running job back to the queue for the next start (issue #13). Order and state only, never timing.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Accounts } from '../accounts/index.js';
import { openSqliteAccounts } from '../accounts/sqlite/index.js';
import { InvalidInputError } from '../errors.js';
import { createLogger } from '../logger.js';
import type { Operation, Operations } from '../operations/index.js';
import { partsOf, type Role } from '../role.js';
import { openStorage, type Storage } from '../storage/index.js';
import { JobFiles } from './job-files.js';
import { JobRunner } from './runner.js';

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
  const log = createLogger('quiet');

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-runner-'));
    accounts = openSqliteAccounts(dataDir);
    storage = await openStorage({ dataDir, signingSecret: undefined, log });
    userId = (await accounts.users.ensure('ada', 'premium')).user.id;
    runners = [];
  });

  afterEach(async () => {
    for (const runner of runners) await runner.close();
    storage.close();
    await accounts.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function runner(operation: Operation, role: Role = 'all'): Promise<JobRunner> {
    const operations = {
      compress: operation,
      merge: operation,
      split: operation,
      ocr: operation,
    } as Operations;
    const files = await JobFiles.open(dataDir);
    const made = new JobRunner({
      store: accounts.jobs,
      operations,
      files,
      downloads: storage.downloads,
      slots: 1,
      log,
      parts: partsOf(role),
    });
    runners.push(made);
    await made.start();
    return made;
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

  it('answers a synchronous call taken by an API runner once a worker runner has run it (issue #16)', async () => {
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
    const refused = api.run(submission('bad'), new AbortController().signal);
    await runner(ok, 'worker');
    expect(await answered).toEqual({ text: 'from the worker' });
    await expect(refused).rejects.toMatchObject({
      status: 400,
      code: 'invalid_input',
      message: 'not an image',
    });
  });

  it('stops the tools of a job running in a worker runner when an API runner cancels it', async () => {
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
  });

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

  it('lets a worker runner’s running job finish within the grace period on stop, and starts no new one', async () => {
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
    expect(await accounts.jobs.get(queued.id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(held.started).toEqual(['running']);
  });

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
