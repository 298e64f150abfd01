// Jobs as the contract checks them, whichever processes answer: 202 answers and their
// headers, polling to the same data the synchronous call gives, owners only, listing, fairness by
// start order, and a long OCR of a document handing its slot on between chunks. Run embedded with one
// CPU slot (jobs.test.ts) and on the distributed stack (stack-contract.test.ts).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  AccountResponse,
  JobListResponse,
  JobResponse,
  MergeResult,
  OcrPdfResult,
} from '@pdn/api-types';
import { characterErrorRate, labelledPdf, pageLabels, scannedDocumentPdf } from '@pdn/fixtures';
import { beforeAll, expect, it } from 'vitest';
import { download } from '../harness/download.js';
import { file, form } from '../harness/form.js';
import { getJob, submitJob, waitForJob } from '../harness/jobs.js';
import { cannotOcrDocuments } from '../harness/tools.js';
import type { ServerContext } from '../harness/use-server.js';

export async function mergeForm(label: string): Promise<FormData> {
  return form(
    file('files[]', await labelledPdf(`${label}a`, 1), 'a.pdf'),
    file('files[]', await labelledPdf(`${label}b`, 1), 'b.pdf'),
  );
}

export async function used(ctx: ServerContext, key: string): Promise<number> {
  return (await ctx.call<AccountResponse>('/api/v1/account', { key })).json.data.used;
}

/** The job folders in the (first) server's data folder: none where the inputs are in a bucket. */
export async function jobFolders(ctx: ServerContext): Promise<string[]> {
  return readdir(join(ctx.server.dataDir, 'jobs')).catch(() => []);
}

/** `slots`: how many jobs run at once where the cases run (one embedded, a worker each on the stack). */
export function jobCases(ctx: ServerContext, { slots }: { slots: number }): void {
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
    // The window as it stands: the submission counted, the reading not.
    expect(Number(read.headers.get('x-ratelimit-remaining'))).toBe(1000 - before - 1);
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
    // Blank fields of a GET form are not sent: the first page, every status, the default limit.
    const blank = await ctx.call<JobListResponse>('/api/v1/jobs?status=&limit=&cursor=', { key: lister });
    expect(blank.json.data.jobs.map((job) => job.id)).toEqual([...ids].reverse());
  });

  it('starts jobs fairly: one user’s single job starts before another’s remaining 49', async () => {
    const [a, b] = [
      await ctx.server.createKey({ user: 'many', plan: 'premium' }),
      await ctx.server.createKey({ user: 'one', plan: 'premium' }),
    ];
    // Submitted all at once, so they pile up faster than the slots take them even where two workers
    // run them (the stack): one after another, a quiet machine may finish each before the next arrives.
    const forms = await Promise.all(Array.from({ length: 50 }, (_, i) => mergeForm(`A${i}`)));
    const many = (await Promise.all(forms.map((body) => submitJob(ctx, a, '/api/v1/merge', body)))).map(
      (job) => job.id,
    );
    const single = await submitJob(ctx, b, '/api/v1/merge', await mergeForm('B'));
    // B's job is stored by the time its 202 arrives (its created_at is stamped just before: on the
    // stack, another process may start one of A's jobs in between). Same machine, same clock.
    const stored = new Date().toISOString();
    const started = await waitForJob(ctx, b, single.id);
    const manyDone = [];
    for (const id of many) manyDone.push(await waitForJob(ctx, a, id));
    // Those of A's jobs that had not started when B's was stored all started after B's.
    const waiting = manyDone.filter((job) => (job.started_at ?? '') > stored);
    expect(waiting.length).toBeGreaterThan(0);
    const startedBefore = waiting.filter((job) => (job.started_at ?? '') < (started.started_at ?? ''));
    expect(startedBefore.map((job) => job.id)).toEqual([]);
    expect(manyDone.every((job) => job.status === 'succeeded')).toBe(true);
  });

  it.skipIf(cannotOcrDocuments('the hand-on of a long OCR'))(
    'hands a long OCR’s slot on between chunks: another user’s merge ends first, the OCR has every page',
    { timeout: 300_000 },
    async () => {
      const [long, other] = [
        await ctx.server.createKey({ user: 'long', plan: 'premium' }),
        await ctx.server.createKey({ user: 'other', plan: 'premium' }),
      ];
      // Six 300 dpi pages: more than one chunk at the pace the server assumes before it has read any
      // (ocr-pdf/chunk-sizes.ts), so a first chunk, then a turn to hand on at.
      const scan = await scannedDocumentPdf({ pages: 6, seed: 23, dpi: 300 });
      const body = () => form(file('file', scan.bytes, 'scan.pdf'));
      // As many long jobs as the slots here: none is free.
      const jobs = [];
      for (let slot = 0; slot < slots; slot++)
        jobs.push(await submitJob(ctx, long, '/api/v1/ocr/pdf', body()));
      await waitForJob(ctx, long, jobs[0]?.id ?? '', ['running']);
      const mergeBody = await mergeForm('O');
      const running: string[] = [];
      for (const job of jobs)
        if ((await getJob(ctx, long, job.id)).status === 'running') running.push(job.id);
      const merge = await submitJob(ctx, other, '/api/v1/merge', mergeBody);
      const merged = await waitForJob(ctx, other, merge.id);
      const read = [];
      for (const job of jobs) read.push(await waitForJob(ctx, long, job.id));
      expect(merged.status).toBe('succeeded');
      // A long job running when the merge came (all slots were) ended after it: it handed its slot on.
      const handedOn = read.filter(
        (job) => running.includes(job.id) && (job.finished_at ?? '') > (merged.finished_at ?? ''),
      );
      expect(handedOn.length).toBeGreaterThan(0);
      for (const job of read) {
        expect(job.status).toBe('succeeded');
        const result = job.result as OcrPdfResult;
        expect([result.page_count, result.pages_ocred]).toEqual([6, 6]);
        expect(characterErrorRate(scan.pageTexts.join('\f'), result.text)).toBeLessThan(0.05);
      }
    },
  );
}
