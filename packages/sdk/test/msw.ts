// One msw server for the SDK's unit tests: unhandled requests are errors (STYLE.md principle 7),
// and every request that reaches it is recorded so a test can assert "nothing was sent".
import type { Download } from '@pdn/api-types';
import { HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { Pdn, type PdnOptions } from '../src/index.js';

export const baseUrl = 'http://pdn.test';
export const apiKey = `pdn_test_${'a'.repeat(32)}`;
export const server = setupServer();
export const sent: Request[] = [];

export function useMsw(): void {
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
    server.events.on('request:start', ({ request }) => {
      sent.push(request);
    });
  });
  beforeEach(() => {
    sent.length = 0;
    // The SDK reads these when options are absent; tests must not depend on the shell's values.
    vi.stubEnv('PDN_API_KEY', '');
    vi.stubEnv('PDN_BASE_URL', '');
  });
  afterEach(() => {
    server.resetHandlers();
    vi.unstubAllEnvs();
    vi.useRealTimers();
  });
  afterAll(() => server.close());
}

export function client(options: PdnOptions = {}): Pdn {
  return new Pdn({ apiKey, baseUrl, ...options });
}

export const rateLimitHeaders = {
  'X-RateLimit-Limit': '1000',
  'X-RateLimit-Remaining': '998',
  'X-RateLimit-Reset': '1800000000',
};

/** A success envelope as the server sends it (openapi.yaml `*Response`). */
export function ok(data: object, headers: Record<string, string> = rateLimitHeaders): Response {
  return HttpResponse.json(
    { data, meta: { request_id: 'req_ok' } },
    { headers: { 'X-Request-Id': 'req_ok', ...headers } },
  );
}

/** An error envelope (openapi.yaml `ErrorResponse`). */
export function fail(status: number, code: string, headers: Record<string, string> = {}): Response {
  return HttpResponse.json(
    { error: { code, message: `${code} happened` }, meta: { request_id: `req_${status}` } },
    { status, headers: { 'X-Request-Id': `req_${status}`, ...headers } },
  );
}

export function download(overrides: Partial<Download> = {}): Download {
  return {
    url: '/api/get-pdf.php?file=out1&exp=1800000000&sig=abc',
    expires_in: 900,
    expires_at: new Date(Date.now() + 900_000).toISOString(),
    ...overrides,
  };
}

export const compressData = {
  filename: 'a.compressed.pdf',
  original_size: 2000,
  compressed_size: 1000,
  savings_percent: 50,
  method: 'ghostscript+qpdf',
  level: 'medium',
  page_count: 3,
  download: download(),
};

/** Lets msw's internal hops (microtasks and immediates, which fake timers leave alone) run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Drives a call under fake timers to its end, advancing the clock a second at a time. */
export async function settle<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  let result: PromiseSettledResult<T> | undefined;
  promise.then(
    (value) => {
      result = { status: 'fulfilled', value };
    },
    (reason: unknown) => {
      result = { status: 'rejected', reason };
    },
  );
  for (let step = 0; step < 200 && result === undefined; step++) {
    await flush();
    if (result === undefined) await vi.advanceTimersByTimeAsync(1000);
  }
  if (result === undefined) throw new Error('the call did not settle');
  return result;
}

/** Any error class, for tables of expected errors. */
export type ErrorClass = new (...args: never[]) => Error;
