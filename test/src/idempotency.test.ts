// Idempotency-Key (openapi.yaml, "Idempotency") on the real server: a repeated request is
// answered from the first, does no work and is not counted; a different request with the key is 422;
// a duplicate of a still-running call waits for it, or gets 409 past the wait; a key whose first
// request did no work (refused, or its client went away) is free again; keys are per user; and the
// SDK's retry after an answer lost on the way (a real socket cut at a proxy) does the work once.
import { randomUUID } from 'node:crypto';
import type { AccountResponse, Job, JobListResponse, JobResponse, MergeResult } from '@pdn/api-types';
import { embeddedFontPdf, labelledPdf } from '@pdn/fixtures';
import { Pdn } from '@pdn/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CheckedFetch, checkedFetch } from './contract/checked-fetch.js';
import { answerCuttingProxy } from './harness/answer-cutting-proxy.js';
import { download } from './harness/download.js';
import { file, form } from './harness/form.js';
import { waitForJob } from './harness/jobs.js';
import { missing, tools } from './harness/tools.js';
import { type ServerContext, useServer } from './harness/use-server.js';

async function mergeForm(label: string): Promise<FormData> {
  return form(
    file('files[]', await labelledPdf(`${label}a`, 1), 'a.pdf'),
    file('files[]', await labelledPdf(`${label}b`, 1), 'b.pdf'),
  );
}

async function used(ctx: ServerContext, key: string): Promise<number> {
  return (await ctx.call<AccountResponse>('/api/v1/account', { key })).json.data.used;
}

async function jobs(ctx: ServerContext, key: string): Promise<Job[]> {
  return (await ctx.call<JobListResponse>('/api/v1/jobs?limit=100', { key })).json.data.jobs;
}

/** The parts of a merge's answer that do not change when its URL is signed again. */
const unsigned = ({ download: _, ...rest }: MergeResult) => rest;

describe('Idempotency-Key', () => {
  const ctx = useServer();
  let key: string;
  let other: string;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'ada', plan: 'premium' });
    other = await ctx.server.createKey({ user: 'bob', plan: 'premium' });
  });

  it('does 20 concurrent identical calls once, counted once, each answered the same', async () => {
    const [usedBefore, jobsBefore] = [await used(ctx, key), (await jobs(ctx, key)).length];
    const idem = randomUUID();
    const body = await mergeForm('C');
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        ctx.call<{ data: MergeResult }>('/api/v1/merge', { key, body, headers: { 'Idempotency-Key': idem } }),
      ),
    );
    // 409 is the documented answer past the wait (10 s); a small merge ends well within it.
    const ok = answers.filter((answer) => answer.status === 200);
    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 409)).toEqual([]);
    expect(ok.length).toBeGreaterThan(0);
    const first = unsigned(ok[0]?.json.data as MergeResult);
    for (const answer of ok) expect(unsigned(answer.json.data)).toEqual(first);
    // Each replay's URL is signed afresh and downloads the one output.
    const bytes = (await download(ctx, ok[0]?.json.data.download.url as string)).bytes;
    expect((await download(ctx, ok.at(-1)?.json.data.download.url as string)).bytes).toEqual(bytes);
    expect(await used(ctx, key)).toBe(usedBefore + 1);
    expect((await jobs(ctx, key)).length).toBe(jobsBefore + 1);
  });

  it('answers a different request with the same key 422, not counted', async () => {
    const idem = randomUUID();
    const first = await ctx.call('/api/v1/merge', {
      key,
      body: await mergeForm('D'),
      headers: { 'Idempotency-Key': idem },
    });
    expect(first.status).toBe(200);
    const before = await used(ctx, key);
    const changed = await ctx.call('/api/v1/merge', {
      key,
      body: await mergeForm('E'),
      headers: { 'Idempotency-Key': idem },
    });
    expect(changed.status).toBe(422);
    expect(changed.json).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    // Asking for a job is another request too.
    const async = await ctx.call('/api/v1/merge', {
      key,
      body: await mergeForm('D'),
      headers: { 'Idempotency-Key': idem, Prefer: 'respond-async' },
    });
    expect(async.status).toBe(422);
    expect(await used(ctx, key)).toBe(before);
  });

  it('answers a repeated submission 202 with the same job, counted once', async () => {
    const idem = randomUUID();
    const body = await mergeForm('F');
    const send = () =>
      ctx.call<JobResponse>('/api/v1/merge', {
        key,
        body,
        headers: { 'Idempotency-Key': idem, Prefer: 'respond-async' },
      });
    const first = await send();
    expect(first.status).toBe(202);
    const before = await used(ctx, key);
    const again = await send();
    expect(again.status).toBe(202);
    expect(again.json.data.id).toBe(first.json.data.id);
    expect(again.headers.get('location')).toBe(`/api/v1/jobs/${first.json.data.id}`);
    await waitForJob(ctx, key, first.json.data.id);
    const later = await send();
    expect(later.json.data).toMatchObject({ id: first.json.data.id, status: 'succeeded' });
    expect(await used(ctx, key)).toBe(before);
  });

  it('keeps keys per user', async () => {
    const idem = randomUUID();
    const body = await mergeForm('G');
    const [mine, theirs] = await Promise.all(
      [key, other].map((k) =>
        ctx.call<JobResponse>('/api/v1/merge', {
          key: k,
          body,
          headers: { 'Idempotency-Key': idem, Prefer: 'respond-async' },
        }),
      ),
    );
    expect(mine?.status).toBe(202);
    expect(theirs?.status).toBe(202);
    expect(mine?.json.data.id).not.toBe(theirs?.json.data.id);
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
    ['with a slash', 'a/b'],
  ])('refuses a key %s with 400', async (_, idem) => {
    const res = await ctx.call('/api/v1/merge', {
      key,
      body: await mergeForm('H'),
      headers: { 'Idempotency-Key': idem },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringMatching(/Idempotency-Key/) },
    });
  });

  it('frees the key of a request refused before any work', async () => {
    const idem = randomUUID();
    const refused = await ctx.call('/api/v1/merge', {
      key,
      body: form(file('files[]', await labelledPdf('I', 1), 'a.pdf')),
      headers: { 'Idempotency-Key': idem },
    });
    expect(refused.status).toBe(400);
    const next = await ctx.call('/api/v1/merge', {
      key,
      body: await mergeForm('I'),
      headers: { 'Idempotency-Key': idem },
    });
    expect(next.status).toBe(200);
  });

  describe('through the SDK', () => {
    let checked: CheckedFetch;
    beforeAll(() => {
      checked = checkedFetch();
    });
    afterEach(() => checked.assertConforms());

    it('retries a call whose answer was lost with the same key: the work is done and counted once', async () => {
      const proxy = await answerCuttingProxy(new URL(ctx.server.baseUrl), 1);
      try {
        const [usedBefore, jobsBefore] = [await used(ctx, key), (await jobs(ctx, key)).length];
        const pdn = new Pdn({ apiKey: key, baseUrl: proxy.url, fetch: checked.fetch, maxRetries: 2 });
        const result = await pdn.merge({ files: [await labelledPdf('Ja', 1), await labelledPdf('Jb', 1)] });
        expect(proxy.cut()).toBe(1);
        expect(result).toMatchObject({ filename: 'merged.pdf', page_count: 2 });
        expect(await used(ctx, key)).toBe(usedBefore + 1);
        expect((await jobs(ctx, key)).length).toBe(jobsBefore + 1);
      } finally {
        await proxy.close();
      }
    });

    it("sends the caller's own key", async () => {
      const idem = randomUUID();
      const pdn = new Pdn({ apiKey: key, baseUrl: ctx.server.baseUrl, fetch: checked.fetch });
      const files = [await labelledPdf('Ka', 1), await labelledPdf('Kb', 1)];
      await pdn.merge({ files, idempotencyKey: idem });
      const before = await used(ctx, key);
      await pdn.merge({ files, idempotencyKey: idem });
      expect(await used(ctx, key)).toBe(before);
    });
  });
});

describe('Idempotency-Key while the first call runs', () => {
  // No wait: a duplicate of a running call is told 409 at once.
  const ctx = useServer({ env: { PDN_IDEMPOTENCY_WAIT_SECONDS: '0', PDN_JOB_CONCURRENCY: '1' } });
  let key: string;
  const slow = async () => form(file('file', await embeddedFontPdf({ pages: 60 }), 'fonts.pdf'));

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'ada', plan: 'premium' });
  });

  async function running(): Promise<Job> {
    for (;;) {
      const list = (await ctx.call<JobListResponse>('/api/v1/jobs?status=running', { key })).json.data.jobs;
      if (list[0]) return list[0];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it.skipIf(missing('ghostscript', 'the 409 and canceled-call idempotency cases'))(
    'answers 409 with a retry hint to a duplicate of a running call, then the first answer',
    async () => {
      const idem = randomUUID();
      const body = await slow();
      const headers = { 'Idempotency-Key': idem };
      const first = ctx.call('/api/v1/compress', { key, body, headers });
      await running();
      const before = await used(ctx, key);
      const duplicate = await ctx.call('/api/v1/compress', { key, body, headers });
      expect(duplicate.status).toBe(409);
      expect(duplicate.json).toMatchObject({
        error: { code: 'idempotency_in_progress', retry_after_seconds: 1 },
      });
      const answer = await first;
      expect(answer.status).toBe(200);
      const replay = await ctx.call('/api/v1/compress', { key, body, headers });
      expect(replay.status).toBe(200);
      expect(await used(ctx, key)).toBe(before);
    },
  );

  it.skipIf(!tools.ghostscript)('frees the key of a call whose client went away', async () => {
    const idem = randomUUID();
    const body = await slow();
    const headers = { 'Idempotency-Key': idem };
    const gone = new AbortController();
    // Raw fetch: the call is cut on purpose, so there is no exchange to check against the contract.
    const first = fetch(`${ctx.server.baseUrl}/api/v1/compress`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${key}` },
      body,
      signal: gone.signal,
    }).catch((error: unknown) => error);
    const job = await running();
    gone.abort();
    await first;
    expect((await waitForJob(ctx, key, job.id)).status).toBe('canceled');
    const again = await ctx.call('/api/v1/compress', { key, body, headers });
    expect(again.status).toBe(200);
  });
});

describe('Idempotency-Key repeats go through admission', () => {
  // Duplicates wait for the first call as long as it runs: what refuses them here is admission.
  const ctx = useServer({ env: { PDN_IDEMPOTENCY_WAIT_SECONDS: '120', PDN_JOB_CONCURRENCY: '1' } });

  it("answers a repeat 429 once its user's hour is spent, before its body, not counted", async () => {
    const key = await ctx.server.createKey({ user: 'spent', plan: 'free' });
    const idem = randomUUID();
    const headers = { 'Idempotency-Key': idem };
    const first = await ctx.call('/api/v1/merge', { key, body: await mergeForm('S'), headers });
    expect(first.status).toBe(200);
    for (let i = 1; i < 10; i += 1)
      expect((await ctx.call('/api/v1/merge', { key, body: await mergeForm(`S${i}`) })).status).toBe(200);
    const repeat = await ctx.call('/api/v1/merge', { key, body: await mergeForm('S'), headers });
    expect(repeat.status).toBe(429);
    expect(repeat.json).toMatchObject({ error: { code: 'rate_limited' } });
    expect(Number(repeat.headers.get('retry-after'))).toBeGreaterThan(1);
    expect(await used(ctx, key)).toBe(10);
  });

  it.skipIf(missing('ghostscript', 'the bound on waiting repeats'))(
    "holds a user's waiting repeats to its calls in progress, and answers each one admitted the first answer",
    async () => {
      const key = await ctx.server.createKey({ user: 'repeater', plan: 'free' });
      const headers = { 'Idempotency-Key': randomUUID() };
      const body = form(file('file', await embeddedFontPdf({ pages: 60 }), 'fonts.pdf'));
      const first = ctx.call('/api/v1/compress', { key, body, headers });
      for (;;) {
        const list = (await ctx.call<JobListResponse>('/api/v1/jobs?status=running', { key })).json.data.jobs;
        if (list[0]) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // Free: 10 calls in progress. The first holds one; 9 repeats wait, 3 are refused at once.
      const repeats = await Promise.all(
        Array.from({ length: 12 }, () => ctx.call('/api/v1/compress', { key, body, headers })),
      );
      const answer = await first;
      expect(answer.status).toBe(200);
      const statuses = repeats.map((repeat) => repeat.status).sort();
      expect(statuses).toEqual([...Array(9).fill(200), 503, 503, 503]);
      for (const refused of repeats.filter((repeat) => repeat.status === 503))
        expect(refused.json).toMatchObject({ error: { code: 'server_busy' } });
      expect(await used(ctx, key)).toBe(1);
    },
  );
});
