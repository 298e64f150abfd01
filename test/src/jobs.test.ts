// Jobs (issue #13) on the real server with one CPU slot, so the order jobs start in is the server's
// choice alone: 202 answers and their headers, polling to the same data the synchronous call gives,
// owners only, listing, cancelling queued and running jobs (tools killed, files removed), the cap on
// unfinished jobs, fairness by start order, and restarts after SIGKILL. Order and counts only.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountResponse, Job, JobListResponse, JobResponse, MergeResult } from '@pdn/api-types';
import { embeddedFontPdf, labelledPdf, pageLabels } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { download } from './harness/download.js';
import { file, form } from './harness/form.js';
import { getJob, submitJob, waitForJob } from './harness/jobs.js';
import { processesMentioning } from './harness/processes.js';
import { missing } from './harness/tools.js';
import { type ServerContext, useServer } from './harness/use-server.js';

const ONE_SLOT = { PDN_JOB_CONCURRENCY: '1' };

async function mergeForm(label: string): Promise<FormData> {
  return form(
    file('files[]', await labelledPdf(`${label}a`, 1), 'a.pdf'),
    file('files[]', await labelledPdf(`${label}b`, 1), 'b.pdf'),
  );
}

/** A compress that keeps the one slot busy for seconds (Ghostscript on 60 pages of embedded fonts). */
async function slowForm(): Promise<FormData> {
  return form(file('file', await embeddedFontPdf({ pages: 60 }), 'fonts.pdf'));
}

async function used(ctx: ServerContext, key: string): Promise<number> {
  return (await ctx.call<AccountResponse>('/api/v1/account', { key })).json.data.used;
}

async function jobFolders(ctx: ServerContext): Promise<string[]> {
  return readdir(join(ctx.server.dataDir, 'jobs'));
}

describe('jobs', () => {
  const ctx = useServer({ env: ONE_SLOT });
  let key: string;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'ada', plan: 'premium' });
  });

  it('answers 202 with Location and Preference-Applied, then the data the synchronous call gives', async () => {
    const res = await ctx.call<JobResponse>('/api/v1/merge', {
      key,
      body: await mergeForm('M'),
      headers: { Prefer: 'respond-async' },
    });
    expect(res.status).toBe(202);
    const job = res.json.data;
    expect(res.headers.get('location')).toBe(`/api/v1/jobs/${job.id}`);
    expect(res.headers.get('preference-applied')).toBe('respond-async');
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
    expect(job).toMatchObject({ operation: 'merge', status: 'queued', attempts: 0, finished_at: null });

    const done = await waitForJob(ctx, key, job.id);
    expect(done).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      expired: false,
      poll_after_seconds: null,
    });
    const result = done.result as MergeResult;
    const sync = await ctx.call<{ data: MergeResult }>('/api/v1/merge', { key, body: await mergeForm('M') });
    expect(Object.keys(result).sort()).toEqual(Object.keys(sync.json.data).sort());
    expect(result).toMatchObject({ filename: 'merged.pdf', page_count: 2, input_count: 2 });
    const merged = await download(ctx, result.download.url);
    expect(await pageLabels(merged.bytes)).toEqual(['Ma-1', 'Mb-1']);
    // Each answer signs the URLs afresh: a later read gives a URL that downloads the same output.
    const again = (await getJob(ctx, key, job.id)).result as MergeResult;
    expect((await download(ctx, again.download.url)).bytes).toEqual(merged.bytes);
    expect(await jobFolders(ctx)).toEqual([]);
  });

  it('counts a submission once, and reading, listing and cancelling jobs not at all', async () => {
    const before = await used(ctx, key);
    const job = await submitJob(ctx, key, '/api/v1/merge', await mergeForm('C'));
    await waitForJob(ctx, key, job.id);
    const read = await ctx.call('/api/v1/jobs', { key });
    expect(read.headers.get('x-ratelimit-remaining')).toBeNull();
    await ctx.call(`/api/v1/jobs/${job.id}`, { key, method: 'DELETE' });
    expect(await used(ctx, key)).toBe(before + 1);
  });

  it("answers another user's job 404, to read and to cancel", async () => {
    const job = await submitJob(ctx, key, '/api/v1/merge', await mergeForm('O'));
    const other = await ctx.server.createKey({ user: 'eve', plan: 'premium' });
    for (const method of ['GET', 'DELETE']) {
      const res = await ctx.call<{ error: { code: string } }>(`/api/v1/jobs/${job.id}`, {
        key: other,
        method,
      });
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('not_found');
    }
    expect((await waitForJob(ctx, key, job.id)).status).toBe('succeeded');
  });

  it('lists the caller’s jobs newest first, page by page, filtered by status', async () => {
    const lister = await ctx.server.createKey({ user: 'lister', plan: 'premium' });
    const ids: string[] = [];
    for (const label of ['L1', 'L2', 'L3'])
      ids.push((await submitJob(ctx, lister, '/api/v1/merge', await mergeForm(label))).id);
    for (const id of ids) await waitForJob(ctx, lister, id);

    const first = await ctx.call<JobListResponse>('/api/v1/jobs?limit=2', { key: lister });
    expect(first.json.data.jobs.map((job) => job.id)).toEqual([ids[2], ids[1]]);
    const cursor = first.json.data.next_cursor ?? '';
    const second = await ctx.call<JobListResponse>(`/api/v1/jobs?limit=2&cursor=${cursor}`, { key: lister });
    expect(second.json.data).toMatchObject({ jobs: [{ id: ids[0] }], next_cursor: null });
    const succeeded = await ctx.call<JobListResponse>('/api/v1/jobs?status=succeeded', { key: lister });
    expect(succeeded.json.data.jobs).toHaveLength(3);
    const queued = await ctx.call<JobListResponse>('/api/v1/jobs?status=queued', { key: lister });
    expect(queued.json.data.jobs).toEqual([]);
    for (const bad of ['status=done', 'limit=0', 'limit=101', 'cursor=xyz']) {
      const res = await ctx.call<{ error: { code: string } }>(`/api/v1/jobs?${bad}`, { key: lister });
      expect([bad, res.status, res.json.error.code]).toEqual([bad, 400, 'invalid_input']);
    }
  });

  it('starts jobs fairly: one user’s single job starts before another’s remaining 49', async () => {
    const [a, b] = [
      await ctx.server.createKey({ user: 'many', plan: 'premium' }),
      await ctx.server.createKey({ user: 'one', plan: 'premium' }),
    ];
    const many: string[] = [];
    for (let i = 0; i < 50; i += 1)
      many.push((await submitJob(ctx, a, '/api/v1/merge', await mergeForm(`A${i}`))).id);
    const single = await submitJob(ctx, b, '/api/v1/merge', await mergeForm('B'));
    const started = await waitForJob(ctx, b, single.id);
    const manyDone = [];
    for (const id of many) manyDone.push(await waitForJob(ctx, a, id));
    // Those of A's jobs that had not started when B's was submitted all started after B's.
    const waiting = manyDone.filter((job) => (job.started_at ?? '') > single.created_at);
    expect(waiting.length).toBeGreaterThan(0);
    const startedBefore = waiting.filter((job) => (job.started_at ?? '') < (started.started_at ?? ''));
    expect(startedBefore.map((job) => job.id)).toEqual([]);
    expect(manyDone.every((job) => job.status === 'succeeded')).toBe(true);
  });
});

describe.skipIf(missing('ghostscript', 'the job cancel and cap tests'))('jobs behind a slow one', () => {
  const ctx = useServer({ env: { ...ONE_SLOT, PDN_COMPRESS_ENGINE: 'ghostscript' } });
  let key: string;
  let slow: FormData;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'patient', plan: 'enterprise' });
    slow = await slowForm();
  });

  it('cancels a queued job and a running one: tools killed, files removed', async () => {
    const running = await submitJob(ctx, key, '/api/v1/compress', slow);
    await waitForJob(ctx, key, running.id, ['running']);
    const queued = await submitJob(ctx, key, '/api/v1/merge', await mergeForm('Q'));

    const canceledQueued = await ctx.call<JobResponse>(`/api/v1/jobs/${queued.id}`, {
      key,
      method: 'DELETE',
    });
    expect(canceledQueued.json.data).toMatchObject({ status: 'canceled', started_at: null, attempts: 0 });
    const canceledRunning = await ctx.call<JobResponse>(`/api/v1/jobs/${running.id}`, {
      key,
      method: 'DELETE',
    });
    expect(canceledRunning.json.data).toMatchObject({ status: 'canceled', attempts: 1 });
    expect(canceledRunning.json.data.result).toBeUndefined();
    expect(await processesMentioning(ctx.server.dataDir)).toEqual([]);
    expect(await jobFolders(ctx)).toEqual([]);
    // Cancelling again changes nothing.
    const again = await ctx.call<JobResponse>(`/api/v1/jobs/${running.id}`, { key, method: 'DELETE' });
    expect(again.json.data).toEqual(canceledRunning.json.data);
  });

  it('refuses an asynchronous submission over the plan’s unfinished jobs with 429 too_many_jobs, uncounted', async () => {
    const blocker = await submitJob(ctx, key, '/api/v1/compress', slow);
    await waitForJob(ctx, key, blocker.id, ['running']);
    const free = await ctx.server.createKey({ user: 'small', plan: 'free' });
    const mine: Job[] = [];
    for (let i = 0; i < 5; i += 1)
      mine.push(await submitJob(ctx, free, '/api/v1/merge', await mergeForm(`F${i}`)));
    const refused = await ctx.call<{ error: { code: string; message: string } }>('/api/v1/merge', {
      key: free,
      body: await mergeForm('F5'),
      headers: { Prefer: 'respond-async' },
    });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('too_many_jobs');
    expect(refused.json.error.message).toContain('Free plan allows 5');
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(await used(ctx, free)).toBe(5);
    // A synchronous call is never refused for it.
    const waits = ctx.call('/api/v1/merge', { key: free, body: await mergeForm('S') });
    await ctx.call(`/api/v1/jobs/${blocker.id}`, { key, method: 'DELETE' });
    expect((await waits).status).toBe(200);
    for (const job of mine) expect((await waitForJob(ctx, free, job.id)).status).toBe('succeeded');
  });
});

describe('jobs across a SIGKILL', () => {
  const ctx = useServer({ env: ONE_SLOT });

  it('runs queued jobs and retries the interrupted one after a restart; outputs survive restarts', async () => {
    const key = await ctx.server.createKey({ user: 'durable', plan: 'enterprise' });
    const first = missing('ghostscript', 'a slow job across the restart')
      ? await submitJob(ctx, key, '/api/v1/merge', await mergeForm('K'))
      : await submitJob(ctx, key, '/api/v1/compress', await slowForm());
    const queued: Job[] = [];
    for (let i = 0; i < 5; i += 1)
      queued.push(await submitJob(ctx, key, '/api/v1/merge', await mergeForm(`R${i}`)));
    await waitForJob(ctx, key, first.id, ['running', 'succeeded']);

    await ctx.server.signal('SIGKILL');
    await ctx.server.restart();

    const ended = [];
    for (const job of [first, ...queued]) ended.push(await waitForJob(ctx, key, job.id));
    for (const job of ended) {
      if (job.status === 'failed')
        expect(job).toMatchObject({ attempts: 2, error: { code: 'internal_error' } });
      else expect(job.status).toBe('succeeded');
    }
    const [firstMerge, ...otherMerges] = ended.slice(1);
    if (!firstMerge) throw new Error('no merge job');
    expect([firstMerge, ...otherMerges].map((job) => job.status)).toEqual(Array(5).fill('succeeded'));
    const url = (firstMerge.result as MergeResult).download.url;
    const before = await download(ctx, url);
    expect(await pageLabels(before.bytes)).toEqual(['R0a-1', 'R0b-1']);

    await ctx.server.signal('SIGKILL');
    await ctx.server.restart();
    expect((await download(ctx, url)).bytes).toEqual(before.bytes);
    const reread = await getJob(ctx, key, firstMerge.id);
    expect(reread.status).toBe('succeeded');
    expect(await jobFolders(ctx)).toEqual([]);
  });
});
