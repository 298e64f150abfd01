// The SDK's retry habits taken from openai-node, proven against a real HTTP server: a 408
// is retried, `x-should-retry` overrides the status either way, and `retry-after-ms` wins over
// Retry-After. msw (packages/sdk/test/retries.test.ts) answers inside fetch on a fake clock; here
// undici reads the status and headers off a socket, and the SDK's wait is measured in real time.
import { createServer, type Server } from 'node:http';
import type { ErrorCode, ErrorResponse, LanguagesResponse } from '@pdn/api-types';
import {
  InternalServerError,
  InvalidInputError,
  Pdn,
  type RetryInfo,
  ServiceUnavailableError,
} from '@pdn/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/** An error answer the stub sends before the success it ends with. */
interface Failure {
  status: number;
  code: ErrorCode;
  headers?: Record<string, string>;
}

const languages: LanguagesResponse = {
  data: { default: 'eng', languages: [{ code: 'eng', source: 'bundled' }] },
  meta: { request_id: 'req_stub_ok' },
};

let server: Server;
let baseUrl: string;
let script: Failure[] = [];
/** When each request reached the stub (performance.now(), ms), and for which path. */
let received: Array<{ at: number; path: string }> = [];

/** The next answer: the scripted failures in turn, then the languages listing. */
function nextAnswer(): { status: number; headers: Record<string, string>; body: object } {
  const failure = script.shift();
  if (failure === undefined) return { status: 200, headers: {}, body: languages };
  const body: ErrorResponse = {
    error: { code: failure.code, message: `${failure.code} (scripted)` },
    meta: { request_id: `req_stub_${failure.status}` },
  };
  return { status: failure.status, headers: failure.headers ?? {}, body };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push({ at: performance.now(), path: req.url ?? '' });
    const { status, headers, body } = nextAnswer();
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_stub', ...headers });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the stub has no TCP port');
  baseUrl = `http://127.0.0.1:${address.port}`;
});

beforeEach(() => {
  script = [];
  received = [];
});

afterAll(async () => {
  // undici keeps the SDK's sockets alive; close() alone would wait for them to time out.
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
});

function client(onRetry?: (info: RetryInfo) => void): Pdn {
  return new Pdn({ apiKey: `pdn_test_${'a'.repeat(32)}`, baseUrl, onRetry });
}

describe('status and x-should-retry', () => {
  it('retries a 408, then succeeds', async () => {
    script = [{ status: 408, code: 'request_timeout' }];
    await expect(client().languages()).resolves.toMatchObject(languages.data);
    expect(received.map((request) => request.path)).toEqual(['/api/v1/languages', '/api/v1/languages']);
  });

  it('does not retry a plain 400', async () => {
    // The control for the next test: without the header a 400 is final.
    script = [{ status: 400, code: 'invalid_input' }];
    await expect(client().languages()).rejects.toBeInstanceOf(InvalidInputError);
    expect(received).toHaveLength(1);
  });

  it('retries a 400 that says x-should-retry: true, then succeeds', async () => {
    script = [{ status: 400, code: 'invalid_input', headers: { 'x-should-retry': 'true' } }];
    await expect(client().languages()).resolves.toMatchObject(languages.data);
    expect(received).toHaveLength(2);
  });

  it.each([
    [500, 'internal_error', InternalServerError],
    [503, 'service_unavailable', ServiceUnavailableError],
  ] as const)('does not retry a %i that says x-should-retry: false', async (status, code, want) => {
    // Scripted twice, so a retry the SDK should not make would meet the same failure, not a success.
    const failure = { status, code, headers: { 'x-should-retry': 'false' } };
    script = [failure, failure];
    const retries: RetryInfo[] = [];
    await expect(client((info) => retries.push(info)).languages()).rejects.toBeInstanceOf(want);
    expect(received).toHaveLength(1);
    expect(retries).toEqual([]);
  });
});

describe('retry-after-ms', () => {
  it('is preferred over Retry-After: waits about 300 ms, not 30 s', async () => {
    script = [
      { status: 429, code: 'rate_limited', headers: { 'retry-after-ms': '300', 'retry-after': '30' } },
    ];
    const retries: RetryInfo[] = [];
    await expect(client((info) => retries.push(info)).languages()).resolves.toMatchObject(languages.data);
    expect(retries.map(({ attempt, delayMs }) => ({ attempt, delayMs }))).toEqual([
      { attempt: 1, delayMs: 300 },
    ]);
    expect(received).toHaveLength(2);
    const [first, second] = received.map((request) => request.at) as [number, number];
    // The first request is timed before its answer went out, so the gap holds the whole wait; 290
    // leaves room for Node's timers, which may fire a millisecond early.
    expect(second - first).toBeGreaterThanOrEqual(290);
    // Far below 30 s: the bound tells "asked 300 ms" from "asked 30 s", not how fast the machine is.
    expect(second - first).toBeLessThan(5_000);
  });
});
