// pdn.jobs against the real server: submit with `Prefer: respond-async`, get, list,
// wait to the synchronous call's result, cancel, and the typed errors of a failed or foreign job.
// Every response the SDK sees is validated against the contract (checked fetch). Order and counts
// only: no assertion depends on how fast the server works.
import { labelledPdf, notAPdf } from '@pdn/fixtures';
import { InvalidInputError, type Job, JobCanceledError, NotFoundError, Pdn } from '@pdn/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CheckedFetch, checkedFetch } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { useServer } from './harness/use-server.js';

const ctx = useServer();
let checked: CheckedFetch;
let key: string;
let otherKey: string;

function client(apiKey = key): Pdn {
  return new Pdn({ apiKey, baseUrl: ctx.server.baseUrl, fetch: checked.fetch });
}

beforeAll(async () => {
  checked = checkedFetch();
  key = await ctx.server.createKey({ user: 'jobs-sdk', plan: 'premium' });
  otherKey = await ctx.server.createKey({ user: 'jobs-sdk-other', plan: 'premium' });
});

afterEach(() => checked.assertConforms());

describe('submit and wait', () => {
  it('a compress job answers 202 and waits to the shape of the synchronous answer', async () => {
    const pdn = client();
    const job = await pdn.jobs.submit('compress', { file: await labelledPdf('J', 3), level: 'high' });
    const accepted = checked.exchanges.at(-1);
    expect(accepted?.status).toBe(202);
    expect(accepted?.headers.get('location')).toBe(`/api/v1/jobs/${job.id}`);
    expect(accepted?.headers.get('preference-applied')).toBe('respond-async');
    expect(job).toMatchObject({ operation: 'compress', status: 'queued' });

    const seen: string[] = [];
    const result = await job.wait({ onProgress: (j) => seen.push(j.status) });
    const synchronous = await pdn.compress({ file: await labelledPdf('J', 3), level: 'high' });
    expect(Object.keys(result).sort()).toEqual(Object.keys(synchronous).sort());
    expect(result).toMatchObject({ filename: 'document.compressed.pdf', page_count: 3, level: 'high' });
    expect(seen.at(-1)).toBe('succeeded');
    expect(await pageCount(await pdn.download(result.download))).toBe(3);
  });

  it('merge and split jobs end with their own results', async () => {
    const pdn = client();
    const [merge, split] = await Promise.all([
      pdn.jobs.submit('merge', { files: [await labelledPdf('A', 1), await labelledPdf('B', 2)] }),
      pdn.jobs.submit('split', { file: await labelledPdf('S', 3), ranges: '1,2-3' }),
    ]);
    const merged = await merge.wait();
    expect(merged).toMatchObject({ page_count: 3, input_count: 2 });
    const parts = await split.wait();
    expect(parts.parts.map((part) => part.pages)).toEqual(['1', '2-3']);
  });

  it('a job that fails rejects with the error the synchronous call would throw', async () => {
    const pdn = client();
    const job = await pdn.jobs.submit('compress', { file: notAPdf() });
    const error = await job.wait().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ code: 'invalid_input', status: 400 });
    expect(await pdn.jobs.get(job.id)).toMatchObject({ status: 'failed', error: { code: 'invalid_input' } });
  });
});

describe('get, list, cancel', () => {
  it('lists its own jobs, newest first, by status and page by page', async () => {
    const pdn = client();
    const first = await pdn.jobs.submit('compress', { file: await labelledPdf('L1', 1) });
    const second = await pdn.jobs.submit('compress', { file: await labelledPdf('L2', 1) });
    await Promise.all([first.wait(), second.wait()]);
    const ids: string[] = [];
    for await (const page of pdn.jobs.pages({ status: 'succeeded', limit: 1 })) {
      ids.push(...page.jobs.map((job) => job.id));
    }
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
  });

  it("another user's job is a NotFoundError, to read and to cancel", async () => {
    const job = await client().jobs.submit('compress', { file: await labelledPdf('P', 1) });
    const stranger = client(otherKey);
    await expect(stranger.jobs.get(job.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(stranger.jobs.cancel(job.id)).rejects.toBeInstanceOf(NotFoundError);
    const listed = await stranger.jobs.list();
    expect(listed.jobs.map((j) => j.id)).not.toContain(job.id);
    await job.wait();
  });

  it('cancel: the last of several jobs has not ended and ends canceled; waiting for it says so', async () => {
    const pdn = client();
    const jobs: Job[] = [];
    for (let i = 0; i < 6; i++)
      jobs.push(await pdn.jobs.submit('compress', { file: await labelledPdf(`C${i}`, 20) }));
    const last = jobs.at(-1) as Job;
    const canceled = await last.cancel();
    // A job ends in order behind the five before it; were it already done, cancel changes nothing.
    if (canceled.status === 'canceled') {
      await expect(last.wait()).rejects.toBeInstanceOf(JobCanceledError);
    } else {
      expect(canceled.status).toBe('succeeded');
    }
    // Canceling again changes nothing and answers the job as it is.
    await expect(pdn.jobs.cancel(last.id)).resolves.toMatchObject({ status: canceled.status });
    await Promise.all(jobs.slice(0, -1).map((job) => job.wait()));
  });
});
