// pdn.jobs: submission with `Prefer: respond-async`, the job as the server sent it,
// `/api/v1/jobs` read and canceled, and `wait()` polling at the server's suggested interval until
// the job ends with the synchronous call's result or the typed error of its failure.
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ApiError,
  ExpiredError,
  InternalServerError,
  InvalidInputError,
  type Job,
  JobCanceledError,
  NotFoundError,
  RateLimitError,
  TooManyJobsError,
} from '../src/index.js';
import {
  baseUrl,
  client,
  compressData,
  type ErrorClass,
  fail,
  flush,
  ok,
  rateLimitHeaders,
  sent,
  server,
  settle,
  useMsw,
} from './msw.js';

useMsw();

const id = 'job_Q2xvdWRDb252ZXJ0MDAxYQ';

function jobData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    operation: 'compress',
    status: 'queued',
    attempts: 0,
    created_at: '2026-11-23T04:00:00.000Z',
    started_at: null,
    finished_at: null,
    retained_until: null,
    expired: false,
    poll_after_seconds: 1,
    ...overrides,
  };
}

/** `202 Accepted` with the job, as the server answers `Prefer: respond-async`. */
function accepted(data: Record<string, unknown> = jobData()): Response {
  return HttpResponse.json(
    { data, meta: { request_id: 'req_submit' } },
    {
      status: 202,
      headers: {
        'X-Request-Id': 'req_submit',
        Location: `/api/v1/jobs/${data.id}`,
        'Preference-Applied': 'respond-async',
        ...rateLimitHeaders,
      },
    },
  );
}

/** GET /api/v1/jobs/{id} answers these in turn, then repeats the last. */
function polls(...answers: Array<Record<string, unknown>>): void {
  let call = 0;
  server.use(
    http.get(`${baseUrl}/api/v1/jobs/${id}`, () => ok(answers[Math.min(call++, answers.length - 1)] ?? {})),
  );
}

const file = new Uint8Array([37, 80, 68, 70, 45]);

describe('submit', () => {
  it('sends the operation with Prefer: respond-async and returns the job as the server sent it', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => accepted()));
    const job = await client().jobs.submit('compress', { file, level: 'high' });
    expect(JSON.parse(JSON.stringify(job))).toEqual(jobData());
    expect(job.requestId).toBe('req_submit');
    expect(job.rateLimit?.remaining).toBe(998);
    expect(typeof job.wait).toBe('function');
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.get('prefer')).toBe('respond-async');
    const form = await sent[0]?.formData();
    expect(form?.get('level')).toBe('high');
    expect(form?.get('file')).toBeInstanceOf(File);
  });

  it.each([
    ['merge', '/api/v1/merge', { files: [file, file] }],
    ['split', '/api/v1/split', { file, ranges: ['1', '2-3'] }],
    ['ocr', '/api/v1/ocr', { image: file, language: 'deu' }],
  ] as const)('%s goes to its own operation', async (operation, path, params) => {
    server.use(http.post(`${baseUrl}${path}`, () => accepted(jobData({ operation }))));
    const job = await client().jobs.submit(operation, params as never);
    expect(job.operation).toBe(operation);
    expect(sent[0]?.headers.get('prefer')).toBe('respond-async');
  });

  it('a caller cannot take Prefer away', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => accepted()));
    await client({ headers: { Prefer: 'return=minimal' } }).jobs.submit('compress', {
      file,
      headers: { Prefer: 'wait=10' },
    });
    expect(sent[0]?.headers.get('prefer')).toBe('respond-async');
  });

  it('sends callbackUrl as the callback_url field, and no such field without it', async () => {
    server.use(http.post(`${baseUrl}/api/v1/merge`, () => accepted(jobData({ operation: 'merge' }))));
    const callbackUrl = 'https://example.com/pdn-events';
    await client().jobs.submit('merge', { files: [file, file], callbackUrl });
    await client().jobs.submit('merge', { files: [file, file] });
    const [withUrl, without] = await Promise.all(sent.map((request) => request.formData()));
    expect(withUrl?.get('callback_url')).toBe(callbackUrl);
    expect(withUrl?.getAll('files[]')).toHaveLength(2);
    expect(without?.has('callback_url')).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['not a string', 42],
  ])('refuses a callbackUrl that is %s, sending nothing', async (_, callbackUrl) => {
    await expect(
      client().jobs.submit('compress', { file, callbackUrl: callbackUrl as string }),
    ).rejects.toThrow(/callbackUrl must be a URL/);
    expect(sent).toHaveLength(0);
  });

  it('refuses what the synchronous call refuses, sending nothing', async () => {
    await expect(client().jobs.submit('merge', { files: [file] })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(client().jobs.submit('rotate' as 'merge', { files: [file, file] })).rejects.toThrow(
      /operation must be one of compress, merge, split, ocr/,
    );
    expect(sent).toHaveLength(0);
  });

  it('a server that answers the work itself (200, no job) is an invalid response', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => ok(compressData)));
    const error = await client()
      .jobs.submit('compress', { file })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it('too_many_jobs is a TooManyJobsError, a kind of RateLimitError, retried after Retry-After', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let call = 0;
    server.use(
      http.post(`${baseUrl}/api/v1/compress`, () =>
        call++ === 0 ? fail(429, 'too_many_jobs', { 'Retry-After': '3' }) : accepted(),
      ),
    );
    const submitted = client().jobs.submit('compress', { file });
    await flush();
    await vi.advanceTimersByTimeAsync(2_999);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(submitted).resolves.toMatchObject({ id });
    expect(sent).toHaveLength(2);
  });

  it('too_many_jobs beyond maxRetryAfter is thrown at once, with its code and hint', async () => {
    server.use(
      http.post(`${baseUrl}/api/v1/compress`, () => fail(429, 'too_many_jobs', { 'Retry-After': '600' })),
    );
    const error = await client()
      .jobs.submit('compress', { file })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyJobsError);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: 'too_many_jobs', status: 429, retryAfter: 600 });
    expect(sent).toHaveLength(1);
  });
});

describe('get, cancel, list', () => {
  it('get reads one job; another user’s or an unknown job is a NotFoundError', async () => {
    polls(jobData({ status: 'running', progress: { done: 2, total: 5 } }));
    const job = await client().jobs.get(id);
    expect(job).toMatchObject({ status: 'running', progress: { done: 2, total: 5 } });
    server.use(http.get(`${baseUrl}/api/v1/jobs/nope`, () => fail(404, 'not_found')));
    await expect(client().jobs.get('nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(client().jobs.get('')).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('cancel sends DELETE and returns the job; job.cancel() does the same', async () => {
    server.use(
      http.delete(`${baseUrl}/api/v1/jobs/${id}`, () => ok(jobData({ status: 'canceled' }))),
      http.post(`${baseUrl}/api/v1/compress`, () => accepted()),
    );
    await expect(client().jobs.cancel(id)).resolves.toMatchObject({ status: 'canceled' });
    const job = await client().jobs.submit('compress', { file });
    await expect(job.cancel()).resolves.toMatchObject({ status: 'canceled' });
    expect(sent.map((request) => request.method)).toEqual(['DELETE', 'POST', 'DELETE']);
  });

  it('list passes status, cursor and limit, and each listed job can be waited for', async () => {
    polls(jobData({ status: 'succeeded', result: compressData, poll_after_seconds: null }));
    server.use(
      http.get(`${baseUrl}/api/v1/jobs`, () =>
        ok({ jobs: [jobData({ status: 'succeeded', result: compressData })], next_cursor: null }),
      ),
    );
    const page = await client().jobs.list({ status: 'succeeded', cursor: 'c1', limit: 10 });
    expect(new URL(sent[0]?.url ?? '').search).toBe('?status=succeeded&cursor=c1&limit=10');
    expect(page.next_cursor).toBeNull();
    // Waiting asks again, for download URLs signed afresh.
    await expect(page.jobs[0]?.wait()).resolves.toMatchObject({ filename: 'a.compressed.pdf' });
    expect(sent).toHaveLength(2);
  });

  it('pages follows next_cursor to the last page', async () => {
    server.use(
      http.get(`${baseUrl}/api/v1/jobs`, ({ request }) => {
        const cursor = new URL(request.url).searchParams.get('cursor');
        if (cursor === null) return ok({ jobs: [jobData({ id: 'job_a' })], next_cursor: 'p2' });
        return ok({ jobs: [jobData({ id: 'job_b' })], next_cursor: null });
      }),
    );
    const ids: string[] = [];
    for await (const page of client().jobs.pages({ status: 'queued' }))
      ids.push(...page.jobs.map((j) => j.id));
    expect(ids).toEqual(['job_a', 'job_b']);
    expect(sent.map((request) => new URL(request.url).search)).toEqual([
      '?status=queued',
      '?status=queued&cursor=p2',
    ]);
  });
});

describe('wait', () => {
  it('asks the server to hold each next look for the interval it suggests, and resolves with the result', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    polls(
      jobData({ poll_after_seconds: 2 }),
      jobData({ status: 'running', progress: { done: 1, total: 3 }, poll_after_seconds: 5 }),
      jobData({ status: 'running', progress: { done: 2, total: 3 }, poll_after_seconds: 1 }),
      jobData({
        status: 'succeeded',
        progress: { done: 3, total: 3 },
        result: compressData,
        poll_after_seconds: null,
      }),
    );
    const seen: Job[] = [];
    const waiting = client().jobs.wait(id, { onProgress: (job) => seen.push(job) });
    const prefer = () => sent.map((request) => request.headers.get('prefer'));
    // The first look is answered as the job is; the next asks to be held up to the 2 s suggested.
    await flush();
    expect(prefer()).toEqual([null, 'wait=2']);
    // msw answers at once, as a server that does not hold would: the SDK waits out the interval
    // (less the real milliseconds the answer took, so the checks stay clear of the edges).
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1_000);
    await flush();
    expect(prefer()).toEqual([null, 'wait=2', 'wait=5']);
    await vi.advanceTimersByTimeAsync(4_000);
    await flush();
    expect(sent).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1_000);
    const result = await waiting;
    expect(prefer()).toEqual([null, 'wait=2', 'wait=5', 'wait=1']);
    expect(JSON.parse(JSON.stringify(result))).toEqual(compressData);
    expect(result.requestId).toBe('req_ok');
    expect(seen.map((job) => job.status)).toEqual(['queued', 'running', 'running', 'succeeded']);
  });

  it('a held look answered when the job ends resolves at once', async () => {
    polls(jobData({ poll_after_seconds: 10 }), jobData({ status: 'succeeded', result: compressData }));
    await expect(client().jobs.wait(id)).resolves.toMatchObject({ filename: 'a.compressed.pdf' });
    expect(sent.map((request) => request.headers.get('prefer'))).toEqual([null, 'wait=10']);
  });

  it('never asks to be held past the call timeout', async () => {
    polls(jobData({ poll_after_seconds: 10 }), jobData({ status: 'succeeded', result: compressData }));
    await client({ timeout: 4_000 }).jobs.wait(id);
    expect(sent[1]?.headers.get('prefer')).toBe('wait=3');
  });

  it('a suggestion of 0 s still waits the floor (200 ms) between looks', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    polls(jobData({ poll_after_seconds: 0 }), jobData({ status: 'succeeded', result: compressData }));
    const waiting = client().jobs.wait(id);
    await flush();
    await vi.advanceTimersByTimeAsync(199);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(waiting).resolves.toMatchObject({ filename: 'a.compressed.pdf' });
  });

  const endings: Array<[string, { job: Record<string, unknown>; want: ErrorClass; fields: object }]> = [
    [
      'failed on bad input: InvalidInputError with the synchronous call’s status',
      {
        job: jobData({ status: 'failed', error: { code: 'invalid_input', message: 'not a PDF' } }),
        want: InvalidInputError,
        fields: { code: 'invalid_input', status: 400, message: 'not a PDF', requestId: 'req_ok' },
      },
    ],
    [
      'failed in the engine: InternalServerError',
      {
        job: jobData({ status: 'failed', error: { code: 'internal_error', message: 'tool crashed twice' } }),
        want: InternalServerError,
        fields: { code: 'internal_error', status: 500 },
      },
    ],
    [
      'canceled: JobCanceledError',
      {
        job: jobData({ status: 'canceled' }),
        want: JobCanceledError,
        fields: { code: 'job_canceled', jobId: id },
      },
    ],
    [
      'succeeded, outputs past their retention: ExpiredError',
      {
        job: jobData({ status: 'succeeded', expired: true, poll_after_seconds: null }),
        want: ExpiredError,
        fields: { code: 'expired', status: 410 },
      },
    ],
  ];
  it.each(endings)('%s', async (_name, { job, want, fields }) => {
    polls(job);
    const error = await client()
      .jobs.wait(id)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(want);
    expect(error).toMatchObject(fields);
    expect(sent).toHaveLength(1);
  });

  it('the signal stops waiting, also between two looks', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    polls(jobData({ poll_after_seconds: 10 }));
    const controller = new AbortController();
    const waiting = settle(client().jobs.wait(id, { signal: controller.signal }));
    await flush();
    controller.abort();
    const result = await waiting;
    expect(result.status === 'rejected' && result.reason).toBeInstanceOf(AbortError);
    // The first look, and the held one asked right after it.
    expect(sent).toHaveLength(2);
  });

  it('a look that fails is retried by the usual policy, then waiting goes on', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let call = 0;
    server.use(
      http.get(`${baseUrl}/api/v1/jobs/${id}`, () => {
        call++;
        if (call === 1) return ok(jobData());
        if (call === 2) return fail(503, 'service_unavailable');
        return ok(jobData({ status: 'succeeded', result: compressData }));
      }),
    );
    const result = await settle(client().jobs.wait(id));
    expect(result.status).toBe('fulfilled');
    expect(sent).toHaveLength(3);
  });
});
