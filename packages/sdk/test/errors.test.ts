import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import * as exported from '../src/index.js';
import {
  AbortError,
  ApiError,
  AuthenticationError,
  ConnectionError,
  InternalServerError,
  InvalidInputError,
  PayloadTooLargeError,
  Pdn,
  PdnError,
  RateLimitError,
  TimeoutError,
} from '../src/index.js';
import { baseUrl, client, type ErrorClass, fail, rateLimitHeaders, sent, server, useMsw } from './msw.js';

useMsw();

describe('server errors reach the caller as their class', () => {
  const table: Array<[string, { status: number; code: string; want: ErrorClass }]> = [
    ['400 invalid_input', { status: 400, code: 'invalid_input', want: InvalidInputError }],
    ['401 unauthorized', { status: 401, code: 'unauthorized', want: AuthenticationError }],
    ['413 payload_too_large', { status: 413, code: 'payload_too_large', want: PayloadTooLargeError }],
    ['429 rate_limited', { status: 429, code: 'rate_limited', want: RateLimitError }],
    ['500 internal_error', { status: 500, code: 'internal_error', want: InternalServerError }],
  ];
  it.each(table)('%s', async (_name, { status, code, want }) => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => fail(status, code, rateLimitHeaders)));
    const error = await client({ maxRetries: 0 })
      .compress({ file: new Blob(['%PDF-']) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(want);
    expect(error).toBeInstanceOf(PdnError);
    expect(error).toMatchObject({ status, code, requestId: `req_${status}`, message: `${code} happened` });
    expect((error as ApiError).headers.get('x-ratelimit-limit')).toBe('1000');
  });
});

describe('transport errors', () => {
  it('a failed connection is a ConnectionError with no status', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => HttpResponse.error()));
    const error = await client({ maxRetries: 0 })
      .compress({ file: new Blob(['%PDF-']) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: 'connection_error' });
    expect((error as ConnectionError).cause).toBeDefined();
  });

  it('an attempt longer than `timeout` is a TimeoutError, retried like a connection error', async () => {
    server.use(
      http.post(`${baseUrl}/api/v1/compress`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const retries: number[] = [];
    const error = await client({
      timeout: 20,
      maxRetries: 1,
      onRetry: ({ attempt }) => retries.push(attempt),
    })
      .compress({ file: new Blob(['%PDF-']) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).not.toBeInstanceOf(AbortError);
    expect(error).toMatchObject({ code: 'timeout', message: 'Request timed out after 20 ms' });
    expect(sent).toHaveLength(2);
    expect(retries).toEqual([1]);
  });

  it('a per-call `timeout` overrides the client one and rejects with TimeoutError', async () => {
    server.use(
      http.get(`${baseUrl}/api/v1/languages`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const error = await client({ maxRetries: 0 })
      .languages({ timeout: 15 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ name: 'TimeoutError', code: 'timeout' });
  });

  it("the caller's abort is an AbortError, never retried", async () => {
    const controller = new AbortController();
    server.use(
      http.post(`${baseUrl}/api/v1/compress`, async () => {
        controller.abort(); // while the server is working on it
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const call = client({ maxRetries: 2 }).compress({ file: new Blob(['%PDF-']), signal: controller.signal });
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).toMatchObject({ code: 'aborted' });
    expect(sent).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const error = await client()
      .languages({ signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(sent).toHaveLength(0);
  });

  it('a 2xx answer that is not a pdn result is an ApiError invalid_response', async () => {
    server.use(http.get(`${baseUrl}/api/v1/languages`, () => HttpResponse.text('<html>hello</html>')));
    const error = await client()
      .languages()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_response', status: 200 });
  });
});

describe('the error classes are statics of Pdn', () => {
  const names = Object.keys(exported).filter((name) => name.endsWith('Error'));
  it.each(names)('Pdn.%s', (name) => {
    expect((Pdn as unknown as Record<string, unknown>)[name]).toBe(
      (exported as Record<string, unknown>)[name],
    );
  });

  it('catch with only Pdn imported', async () => {
    server.use(http.post(`${baseUrl}/api/v1/compress`, () => fail(429, 'rate_limited')));
    const error = await client({ maxRetries: 0 })
      .compress({ file: new Blob(['%PDF-']) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Pdn.RateLimitError);
    const typed: Pdn.RateLimitError = error as Pdn.RateLimitError; // the statics are types too
    expect(typed.code).toBe('rate_limited');
    expect(names.length).toBeGreaterThanOrEqual(15);
  });
});
