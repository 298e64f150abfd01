// Sharing the embedded server (openapi.yaml, "Admission order and back-pressure"): synchronous calls
// wait their turn in the job queue instead of bouncing. A Free user's burst of 30 is exactly its hour:
// 10 answered, 20 refused 429, none 503. Eight users calling one after another are all answered.
// A call that would wait longer than PDN_MAX_SYNC_WAIT behind the queue is refused 503 at once,
// before its body, suggesting Prefer: respond-async; a call whose client leaves while its job waits
// to start is withdrawn and not counted. Counts and statuses only, never times.
import type { Job, JobList } from '@pdn/api-types';
import { embeddedFontPdf, labelledPdf, ocrSample } from '@pdn/fixtures';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallResult } from './contract/checked-fetch.js';
import { field, file, form } from './harness/form.js';
import { submitJob } from './harness/jobs.js';
import { missing } from './harness/tools.js';
import { until } from './harness/until.js';
import { useServer } from './harness/use-server.js';

type Answer = CallResult<{ error?: { code: string; message: string } }>;

const tally = (answers: Answer[]) =>
  answers.reduce<Record<number, number>>((counts, { status }) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

describe('the embedded default with a crowd', () => {
  const ctx = useServer();

  it("answers a Free user's 30 simultaneous calls with exactly its hour: 10 x 200 and 20 x 429, none 503", async () => {
    const key = await ctx.server.createKey({ user: 'burst', plan: 'free' });
    const onePage = await labelledPdf('p', 1);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        ctx.call('/api/v1/split', { key, body: form(file('file', onePage), field('ranges', '1')) }),
      ),
    );
    expect(tally(answers as Answer[])).toEqual({ 200: 10, 429: 20 });
  });

  it('answers every call of eight users calling small operations one after another', async () => {
    const pdf = await labelledPdf('c', 2);
    const image = (await ocrSample('eng', 'png')).bytes;
    const calls: [string, () => FormData][] = [
      ['/api/v1/merge', () => form(file('files[]', pdf, 'a.pdf'), file('files[]', pdf, 'b.pdf'))],
      ['/api/v1/split', () => form(file('file', pdf), field('ranges', '1,2'))],
      ['/api/v1/compress', () => form(file('file', pdf), field('level', 'low'))],
      ['/api/v1/ocr', () => form(file('image', image, 'scan.png'))],
    ];
    const users = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ctx.server.createKey({ user: `crowd-${i}`, plan: 'premium' })),
    );
    const answers = await Promise.all(
      users.map(async (key, user) => {
        const mine: Answer[] = [];
        for (let turn = 0; turn < 6; turn += 1) {
          const [path, body] = calls[(user + turn) % calls.length] as [string, () => FormData];
          mine.push((await ctx.call(path, { key, body: body() })) as Answer);
        }
        return mine;
      }),
    );
    expect(tally(answers.flat())).toEqual({ 200: 48 });
  });
});

describe.skipIf(missing('ghostscript', 'the queue of long compressions'))(
  'one slot, and another user queuing long jobs',
  () => {
    const ctx = useServer({ env: { PDN_JOB_CONCURRENCY: '1', PDN_MAX_SYNC_WAIT: '1' } });
    const patient = useServer({ env: { PDN_JOB_CONCURRENCY: '1' } });

    const hogs: { server: typeof ctx; key: string; jobs: Job[] }[] = [];

    // Their work is not the suites' to wait for: canceled, their files go before the servers look.
    afterAll(async () => {
      for (const { server, key, jobs } of hogs) {
        for (const job of jobs) await server.call(`/api/v1/jobs/${job.id}`, { key, method: 'DELETE' });
        await until('the long jobs are over', async () => {
          const list = await server.call<{ data: JobList }>('/api/v1/jobs', { key });
          return list.json.data.jobs.every((job) => job.finished_at !== null);
        });
      }
    });

    /** Four compressions that keep the one slot busy for seconds each (Ghostscript on 60 pages of fonts). */
    async function queueLongJobs(server: typeof ctx): Promise<Job[]> {
      const key = await server.server.createKey({ user: 'hog', plan: 'premium' });
      const fonts = await embeddedFontPdf({ pages: 60 });
      const jobs: Job[] = [];
      hogs.push({ server, key, jobs });
      for (let i = 0; i < 4; i += 1)
        jobs.push(await submitJob(server, key, '/api/v1/compress', form(file('file', fonts))));
      await until('the first long job runs', async () => {
        const list = await server.call<{ data: JobList }>('/api/v1/jobs', { key });
        return list.json.data.jobs.some((job) => job.status === 'running');
      });
      return jobs;
    }

    it('refuses a call that would wait longer than PDN_MAX_SYNC_WAIT, at once, suggesting respond-async', async () => {
      await queueLongJobs(ctx);
      const key = await ctx.server.createKey({ user: 'caller', plan: 'free' });
      const busy = (await ctx.call('/api/v1/merge', {
        key,
        body: form(file('files[]', await labelledPdf('a', 1)), file('files[]', await labelledPdf('b', 1))),
      })) as Answer;
      expect(busy.status).toBe(503);
      expect(busy.json.error?.code).toBe('server_busy');
      expect(busy.json.error?.message).toMatch(
        /would wait about \d+ s.*start within 0.5 s.*at most 1 s.*Prefer: respond-async/,
      );
      // Not counted, and the same call queued as a job is accepted.
      expect(busy.headers.get('x-ratelimit-remaining')).toBe('10');
      const queued = await ctx.call('/api/v1/merge', {
        key,
        headers: { Prefer: 'respond-async' },
        body: form(file('files[]', await labelledPdf('a', 1)), file('files[]', await labelledPdf('b', 1))),
      });
      expect(queued.status).toBe(202);
    });

    it('withdraws, uncounted, a call whose client leaves while its job waits to start', async () => {
      await queueLongJobs(patient);
      const key = await patient.server.createKey({ user: 'leaver', plan: 'free' });
      const client = new AbortController();
      const leaving = fetch(patient.server.url('/api/v1/merge'), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form(file('files[]', await labelledPdf('a', 1)), file('files[]', await labelledPdf('b', 1))),
        signal: client.signal,
      }).catch(() => undefined);
      const jobsOf = async () =>
        (await patient.call<{ data: JobList }>('/api/v1/jobs', { key })).json.data.jobs;
      await until('the call is queued', async () => (await jobsOf()).some((job) => job.status === 'queued'));
      client.abort();
      await leaving;
      await until('the call is withdrawn', async () => (await jobsOf())[0]?.status === 'canceled');
      expect((await jobsOf())[0]).toMatchObject({ status: 'canceled', started_at: null, attempts: 0 });
      await until('its count given back', async () => {
        const account = await patient.call<{ data: { used: number } }>('/api/v1/account', { key });
        return account.json.data.used === 0;
      });
    });
  },
);
