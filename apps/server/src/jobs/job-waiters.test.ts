// Waiters over the real SQLite store: an end is found whether it was recorded before the wait began,
// heard as an event, or lost on the way (the store is looked at while anyone waits, and only then);
// a wait ends at its time limit or when its caller goes, and a forgotten job ends it too.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteForTest } from '../database/contract-harness.js';
import { LocalJobEvents } from './job-events.js';
import type { JobStore, NewJob } from './job-store.js';
import { JobWaiters } from './job-waiters.js';

describe('JobWaiters', () => {
  let dir: string;
  let db: ReturnType<typeof openSqliteForTest>;
  let store: JobStore;
  let events: LocalJobEvents;
  let waiters: JobWaiters;
  let reads: number;
  /** Reads of one job (after subscribing, or on news of an end from another process). */
  let gets: number;
  let job: NewJob;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-waiters-'));
    db = openSqliteForTest(dir);
    const userId = (await db.users.ensure('ada', 'free')).user.id;
    // Counts the looks at the store, to tell that nothing polls when nobody waits.
    reads = 0;
    gets = 0;
    store = new Proxy(db.jobs, {
      get(target, name) {
        const value = Reflect.get(target, name);
        if (name === 'getMany') reads += 1;
        if (name === 'get') gets += 1;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    events = new LocalJobEvents();
    waiters = new JobWaiters(store, events, 20);
    job = { id: 'job_w', userId, operation: 'merge', mode: 'sync', input: { files: [], params: {} } };
    await store.create(job, Date.now());
  });

  afterEach(async () => {
    waiters.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds an end recorded before the wait began', async () => {
    await store.finish(job.id, { status: 'succeeded', result: { ok: 1 } }, Date.now());
    expect((await waiters.ended(job.id))?.record).toMatchObject({ status: 'succeeded', result: { ok: 1 } });
  });

  it('waits through polls on a job it heard of before it was stored, and finds its end', async () => {
    const later: NewJob = { ...job, id: 'job_later' };
    const ended = waiters.ended(later.id, { stored: false });
    // Polls that find no record yet: the job is not stored yet, not gone.
    const polled = reads;
    while (reads < polled + 3) await new Promise((resolve) => setTimeout(resolve, 10));
    await store.create(later, Date.now());
    await store.finish(later.id, { status: 'succeeded', result: { ok: 2 } }, Date.now());
    expect((await ended)?.record).toMatchObject({ id: later.id, status: 'succeeded' });
  });

  it('takes the record another process told of its end without reading the store', async () => {
    const ended = waiters.ended(job.id, { stored: false });
    const told = await store.finish(job.id, { status: 'succeeded', result: { ok: 3 } }, Date.now());
    events.emit({ id: job.id, told });
    expect((await ended)?.record).toEqual(told);
    expect(gets).toBe(0);
  });

  it('takes an event with the record, or what stopped the job here, as it comes', async () => {
    const ended = waiters.ended(job.id);
    const failure = new Error('disk full');
    events.emit({ id: job.id, error: failure });
    expect(await ended).toEqual({ record: undefined, error: failure });
  });

  it('reads the store for an end heard from elsewhere, and keeps waiting on a stale one', async () => {
    const ended = waiters.ended(job.id);
    events.emit({ id: job.id });
    await store.finish(job.id, { status: 'canceled' }, Date.now());
    events.emit({ id: job.id });
    expect((await ended)?.record?.status).toBe('canceled');
  });

  it('finds an end whose event was lost, by looking at the store while anyone waits, and only then', async () => {
    const ended = waiters.ended(job.id);
    await store.finish(job.id, { status: 'succeeded', result: {} }, Date.now());
    expect((await ended)?.record?.status).toBe('succeeded');
    const after = reads;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads).toBe(after);
  });

  it('ends a wait at its time limit, or when its caller goes, with nothing', async () => {
    expect(await waiters.ended(job.id, { timeoutMs: 30 })).toBeUndefined();
    const caller = new AbortController();
    const ended = waiters.ended(job.id, { signal: caller.signal });
    caller.abort();
    expect(await ended).toBeUndefined();
  });

  it('ends the wait for a job that is not kept (any more)', async () => {
    expect(await waiters.ended('job_never')).toEqual({ record: undefined });
  });
});
