import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ConnectionError,
  CorsRefusalError,
  InsufficientStorageError,
  InternalServerError,
  InvalidInputError,
  RateLimitError,
  type RetryInfo,
  ServerBusyError,
  ServiceUnavailableError,
} from '../src/index.js';
import {
  baseUrl,
  client,
  compressData,
  type ErrorClass,
  fail,
  flush,
  ok,
  sent,
  server,
  settle,
  useMsw,
} from './msw.js';

useMsw();

const languages = { default: 'eng', languages: [{ code: 'eng', source: 'bundled' }] };

/** Answers the listed responses in turn, then repeats the last one. */
function answers(...responses: Array<() => Response>): void {
  let call = 0;
  server.use(
    http.get(`${baseUrl}/api/v1/languages`, () => {
      const respond = responses[Math.min(call++, responses.length - 1)];
      return respond?.() ?? HttpResponse.error();
    }),
  );
}

describe('retry counts', () => {
  const serverError = () => fail(500, 'internal_error');
  const success = () => ok(languages);
  const table: Array<
    [
      string,
      { responses: Array<() => Response>; maxRetries?: number; calls: number; want: 'ok' | ErrorClass },
    ]
  > = [
    ['5xx, then success', { responses: [serverError, serverError, success], calls: 3, want: 'ok' }],
    [
      '5xx every time: 1 + maxRetries attempts',
      { responses: [serverError], calls: 3, want: InternalServerError },
    ],
    [
      'maxRetries 0: one attempt',
      { responses: [serverError], maxRetries: 0, calls: 1, want: InternalServerError },
    ],
    ['maxRetries 5', { responses: [serverError], maxRetries: 5, calls: 6, want: InternalServerError }],
    [
      'connection error, then success',
      { responses: [() => HttpResponse.error(), success], calls: 2, want: 'ok' },
    ],
    [
      '429 without Retry-After backs off',
      { responses: [() => fail(429, 'rate_limited'), success], calls: 2, want: 'ok' },
    ],
    [
      '400 is not retried',
      { responses: [() => fail(400, 'invalid_input')], calls: 1, want: InvalidInputError },
    ],
    ['408, then success', { responses: [() => fail(408, 'request_timeout'), success], calls: 2, want: 'ok' }],
    [
      'x-should-retry: true retries what the status would not',
      {
        responses: [() => fail(400, 'invalid_input', { 'x-should-retry': 'true' }), success],
        calls: 2,
        want: 'ok',
      },
    ],
    [
      'x-should-retry: false is never retried, not even a 5xx',
      {
        responses: [() => fail(500, 'internal_error', { 'x-should-retry': 'false' })],
        calls: 1,
        want: InternalServerError,
      },
    ],
    [
      'x-should-retry: false on a 429',
      {
        responses: [() => fail(429, 'rate_limited', { 'x-should-retry': 'false', 'Retry-After': '1' })],
        calls: 1,
        want: RateLimitError,
      },
    ],
  ];
  it.each(table)('%s', async (_name, { responses, maxRetries, calls, want }) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers(...responses);
    const result = await settle(client(maxRetries === undefined ? {} : { maxRetries }).languages());
    expect(sent).toHaveLength(calls);
    if (want === 'ok') expect(result.status).toBe('fulfilled');
    else expect(result.status === 'rejected' && result.reason).toBeInstanceOf(want);
  });

  it('a per-call maxRetries overrides the client', async () => {
    answers(() => fail(500, 'internal_error'));
    await expect(client({ maxRetries: 3 }).languages({ maxRetries: 0 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(sent).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('waits as long as the server asks when that is within the cap', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers(
      () => fail(429, 'rate_limited', { 'Retry-After': '30' }),
      () => ok(languages),
    );
    const call = client().languages();
    await flush();
    await vi.advanceTimersByTimeAsync(29_999);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(sent).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ default: 'eng' });
  });

  it.each([
    ['retry-after-ms alone', { 'retry-after-ms': '2500' }],
    ['retry-after-ms before Retry-After', { 'retry-after-ms': '2500', 'Retry-After': '30' }],
  ])('waits as long as %s asks, to the millisecond', async (_name, headers) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers(
      () => fail(429, 'rate_limited', headers),
      () => ok(languages),
    );
    const retries: RetryInfo[] = [];
    const call = client({ onRetry: (info) => retries.push(info) }).languages();
    await flush();
    await vi.advanceTimersByTimeAsync(2_499);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(sent).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ default: 'eng' });
    expect(retries.map((retry) => retry.delayMs)).toEqual([2_500]);
  });

  it('beyond the cap, fails at once with RateLimitError telling when to retry', async () => {
    answers(() =>
      fail(429, 'rate_limited', {
        'Retry-After': '3541',
        'X-RateLimit-Limit': '10',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': '1800000000',
      }),
    );
    const retries: RetryInfo[] = [];
    const error = await client({ onRetry: (info) => retries.push(info) })
      .languages()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfter: 3541, rateLimit: { limit: 10, remaining: 0 } });
    expect(sent).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('the cap is configurable (maxRetryAfter, seconds)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers(
      () => fail(429, 'rate_limited', { 'Retry-After': '120' }),
      () => ok(languages),
    );
    const result = await settle(client({ maxRetryAfter: 120 }).languages());
    expect(result.status).toBe('fulfilled');
    expect(sent).toHaveLength(2);
  });

  it('after the last retry the RateLimitError still carries retryAfter', async () => {
    answers(() => fail(429, 'rate_limited', { 'Retry-After': '0' }));
    const error = await client({ maxRetries: 2 })
      .languages()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RateLimitError', retryAfter: 0 });
    expect(sent).toHaveLength(3);
  });
});

/** The API's own 503 and 507: the retry hint is in the envelope, not a header. */
function withHint(status: number, code: string, seconds: number): Response {
  return HttpResponse.json(
    { error: { code, message: `${code} happened`, retry_after_seconds: seconds }, meta: { request_id: 'r' } },
    { status, headers: { 'X-Request-Id': 'r' } },
  );
}

describe('503 service_unavailable and 507 insufficient_storage', () => {
  it("retries a 503 after the envelope's retry_after_seconds", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers(
      () => withHint(503, 'service_unavailable', 5),
      () => ok(languages),
    );
    const retries: RetryInfo[] = [];
    const call = client({ onRetry: (info) => retries.push(info) }).languages();
    await flush();
    await vi.advanceTimersByTimeAsync(4_999);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(sent).toHaveLength(2);
    expect(await call).toMatchObject(languages);
    expect(retries.map(({ delayMs, error }) => ({ delayMs, error: (error as Error).name }))).toEqual([
      { delayMs: 5_000, error: 'ServiceUnavailableError' },
    ]);
  });

  it('after the last retry the 503 is a ServiceUnavailableError with retryAfter', async () => {
    answers(() => withHint(503, 'service_unavailable', 0));
    const error = await client({ maxRetries: 1 })
      .languages()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503, retryAfter: 0 });
    expect(sent).toHaveLength(2);
  });

  it('does not retry a 507, and says when to try again', async () => {
    answers(() => withHint(507, 'insufficient_storage', 60));
    const error = await client()
      .languages()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientStorageError);
    expect(error).toMatchObject({ code: 'insufficient_storage', status: 507, retryAfter: 60 });
    expect(sent).toHaveLength(1);
  });
});

describe('503 server_busy', () => {
  const file = new Uint8Array([37, 80, 68, 70]);
  /** Answers compress with the listed responses in turn, then repeats the last one. */
  function compressAnswers(...responses: Array<() => Response>): void {
    let call = 0;
    server.use(
      http.post(`${baseUrl}/api/v1/compress`, () =>
        (responses[Math.min(call++, responses.length - 1)] as () => Response)(),
      ),
    );
  }

  it("retries after the envelope's retry_after_seconds, with the call's same Idempotency-Key", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    compressAnswers(
      () => withHint(503, 'server_busy', 1),
      () => ok(compressData),
    );
    const retries: RetryInfo[] = [];
    const call = client({ onRetry: (info) => retries.push(info) }).compress({ file });
    await flush();
    await vi.advanceTimersByTimeAsync(999);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(sent).toHaveLength(2);
    expect((await settle(call)).status).toBe('fulfilled');
    expect(retries.map(({ delayMs, error }) => ({ delayMs, error: (error as Error).name }))).toEqual([
      { delayMs: 1_000, error: 'ServerBusyError' },
    ]);
    const keys = sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys[1]).toBe(keys[0]);
  });

  it('after the last retry is a ServerBusyError, a kind of ServiceUnavailableError, with retryAfter', async () => {
    compressAnswers(() => withHint(503, 'server_busy', 0));
    const error = await client({ maxRetries: 2 })
      .compress({ file })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerBusyError);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).toMatchObject({ code: 'server_busy', status: 503, retryAfter: 0 });
    expect(sent).toHaveLength(3);
  });

  it('is not waited for when the hint is beyond maxRetryAfter', async () => {
    compressAnswers(() => withHint(503, 'server_busy', 600));
    const error = await client({ maxRetryAfter: 60 })
      .compress({ file })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ServerBusyError', retryAfter: 600 });
    expect(sent).toHaveLength(1);
  });
});

describe('exponential backoff', () => {
  it('waits 0.5 s, then 1 s, and tells onRetry each time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    answers(() => fail(500, 'internal_error'));
    const retries: RetryInfo[] = [];
    const call = client({ onRetry: (info) => retries.push(info) })
      .languages()
      .catch((e: unknown) => e);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(499);
    await flush();
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(999);
    await flush();
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await flush();
    expect(sent).toHaveLength(3);
    expect(await call).toBeInstanceOf(InternalServerError);
    expect(retries.map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
      { attempt: 1, delayMs: 500 },
      { attempt: 2, delayMs: 1000 },
    ]);
    expect(retries[0]?.error).toMatchObject({ status: 500 });
  });

  it('an abort during the wait ends the call at once with AbortError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    answers(() => fail(500, 'internal_error'));
    const controller = new AbortController();
    const call = client({ onRetry: () => controller.abort() })
      .languages({ signal: controller.signal })
      .catch((e: unknown) => e);
    await flush();
    expect(await call).toBeInstanceOf(AbortError);
    expect(sent).toHaveLength(1);
  });
});

describe('a call the browser refused for CORS', () => {
  const page = 'http://page.test';

  it('is not retried, and says the server must allow the page origin, and how', async () => {
    vi.stubGlobal('location', { origin: page });
    try {
      server.use(
        http.get(`${baseUrl}/api/v1/languages`, () => HttpResponse.error()),
        // The no-cors look: the server is there.
        http.head(`${baseUrl}/api/v1/languages`, () => new HttpResponse(null, { status: 405 })),
      );
      const error = await client()
        .languages()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorsRefusalError);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).toMatchObject({ code: 'cors_refused', origin: page });
      expect((error as Error).message).toMatch(/did not allow this page's origin http:\/\/page\.test/);
      expect((error as Error).message).toContain(`PDN_CORS_ORIGINS=${page}`);
      expect(sent.map((request) => request.method)).toEqual(['GET', 'HEAD']);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a server that is down is still a ConnectionError, retried', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.stubGlobal('location', { origin: page });
    try {
      server.use(
        http.get(`${baseUrl}/api/v1/languages`, () => HttpResponse.error()),
        http.head(`${baseUrl}/api/v1/languages`, () => HttpResponse.error()),
      );
      const result = await settle(client().languages());
      expect(result.status === 'rejected' && result.reason).toBeInstanceOf(ConnectionError);
      expect(result.status === 'rejected' && result.reason).not.toBeInstanceOf(CorsRefusalError);
      expect(sent.filter((request) => request.method === 'GET')).toHaveLength(3);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
