// Jobs on the real server with one CPU slot, so the order jobs start in is the server's
// choice alone: 202 answers and their headers, polling to the same data the synchronous call gives,
// owners only, listing, cancelling queued and running jobs (tools killed, files removed), the cap on
// unfinished jobs, fairness by start order, and restarts after SIGKILL. Order and counts only.
import type { AccountResponse, Job, JobResponse, MergeResult } from '@pdn/api-types';
import { embeddedFontPdf, pageLabels } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { jobCases, jobFolders, mergeForm, used } from './cases/jobs.js';
import { download } from './harness/download.js';
import { file, form } from './harness/form.js';
import { getJob, submitJob, waitForJob } from './harness/jobs.js';
import { toolsLeftAtWork } from './harness/processes.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const ONE_SLOT = { PDN_JOB_CONCURRENCY: '1' };

/** A compress that keeps the one slot busy for seconds (Ghostscript on 60 pages of embedded fonts). */
async function slowForm(): Promise<FormData> {
  return form(file('file', await embeddedFontPdf({ pages: 60 }), 'fonts.pdf'));
}

describe('jobs', () => {
  jobCases(useServer({ env: ONE_SLOT }), { slots: 1 });
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
    expect(await toolsLeftAtWork(ctx.server.dataDir)).toEqual([]);
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
    // The queue as GET /metrics shows it.
    const metrics = (await ctx.call('/metrics')).bytes.toString('utf8');
    expect(metrics).toMatch(/^pdn_jobs_queued\{operation="merge",mode="async"\} 5$/m);
    // A synchronous call is never refused for it.
    const waits = ctx.call('/api/v1/merge', { key: free, body: await mergeForm('S') });
    await ctx.call(`/api/v1/jobs/${blocker.id}`, { key, method: 'DELETE' });
    expect((await waits).status).toBe(200);
    for (const job of mine) expect((await waitForJob(ctx, free, job.id)).status).toBe('succeeded');
  });

  it('answers a user at the cap whose hour is spent 429 rate_limited, the earlier check', async () => {
    const blocker = await submitJob(ctx, key, '/api/v1/compress', slow);
    await waitForJob(ctx, key, blocker.id, ['running']);
    const free = await ctx.server.createKey({ user: 'spent-at-cap', plan: 'free' });
    const mine: Job[] = [];
    for (let i = 0; i < 5; i += 1)
      mine.push(await submitJob(ctx, free, '/api/v1/merge', await mergeForm(`C${i}`)));
    // The rest of the Free 10, on calls counted, then refused for having no files.
    for (let i = 0; i < 5; i += 1)
      expect((await ctx.call('/api/v1/merge', { key: free, body: form() })).status).toBe(400);
    const refused = await ctx.call<{ error: { code: string } }>('/api/v1/merge', {
      key: free,
      body: await mergeForm('C5'),
      headers: { Prefer: 'respond-async' },
    });
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('rate_limited');
    await ctx.call(`/api/v1/jobs/${blocker.id}`, { key, method: 'DELETE' });
    for (const job of mine) expect((await waitForJob(ctx, free, job.id)).status).toBe('succeeded');
  });

  it('counts only the admitted of submissions racing past the cap together', async () => {
    const blocker = await submitJob(ctx, key, '/api/v1/compress', slow);
    await waitForJob(ctx, key, blocker.id, ['running']);
    const free = await ctx.server.createKey({ user: 'hasty', plan: 'free' });
    // Eight at once: all pass the early look, and the job store holds them to 5 after their uploads.
    const forms = await Promise.all(Array.from({ length: 8 }, (_, i) => mergeForm(`H${i}`)));
    const answers = await Promise.all(
      forms.map((body) =>
        ctx.call<JobResponse>('/api/v1/merge', { key: free, body, headers: { Prefer: 'respond-async' } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
    const account = await ctx.call<AccountResponse>('/api/v1/account', { key: free });
    expect(account.json.data.used).toBe(5);
    expect(account.headers.get('x-ratelimit-remaining')).toBe('5');
    await ctx.call(`/api/v1/jobs/${blocker.id}`, { key, method: 'DELETE' });
    for (const answer of answers.filter((answer) => answer.status === 202))
      expect((await waitForJob(ctx, free, answer.json.data.id)).status).toBe('succeeded');
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
    // Each job's inputs go once it has ended. A kill in the moment between a job's end and that
    // removal leaves them to the sweep of a later start, an hour on: not the case under test here.
    for (let tries = 0; (await jobFolders(ctx)).length > 0; tries += 1) {
      if (tries > 200) throw new Error(`inputs left after every job ended: ${await jobFolders(ctx)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    await ctx.server.signal('SIGKILL');
    await ctx.server.restart();
    expect((await download(ctx, url)).bytes).toEqual(before.bytes);
    const reread = await getJob(ctx, key, firstMerge.id);
    expect(reread.status).toBe('succeeded');
    expect(await jobFolders(ctx)).toEqual([]);
  });
});
