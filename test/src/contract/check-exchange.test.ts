// The validator every end-to-end test relies on must itself catch violations: each row breaks one rule.
import { describe, expect, it } from 'vitest';
import { checkExchange, type Exchange } from './check-exchange.js';

const download = {
  url: `/api/get-pdf.php?file=Zk3qT0dXw1y9aB2cD4eF6gH8&exp=1767225600&sig=${'a'.repeat(64)}`,
  expires_in: 900,
  expires_at: '2026-01-01T00:00:00Z',
};
const compressBody = {
  data: {
    filename: 'a.compressed.pdf',
    original_size: 100,
    compressed_size: 50,
    savings_percent: 50,
    method: 'ghostscript+qpdf',
    level: 'medium',
    page_count: 1,
    download,
  },
  meta: { request_id: 'req-0001' },
};
const inAnHour = String(Math.floor(Date.now() / 1000) + 3600);
const limited = {
  'x-request-id': 'req-0001',
  'content-type': 'application/json; charset=utf-8',
  'x-ratelimit-limit': '10',
  'x-ratelimit-remaining': '9',
  'x-ratelimit-reset': inAnHour,
  'ratelimit-policy': '"hourly";q=10;w=3600',
  ratelimit: '"hourly";r=9;t=3600',
};
const unlimited = {
  'x-request-id': 'req-0001',
  'content-type': 'application/json',
  'x-ratelimit-limit': 'unlimited',
  'x-ratelimit-remaining': 'unlimited',
  'x-ratelimit-reset': '1767225600',
};
const rateLimitedBody = {
  error: { code: 'rate_limited', message: 'Free plan: 10 per hour' },
  meta: { request_id: 'req-0001' },
};

const plainError = { 'x-request-id': 'req-0001', 'content-type': 'application/json' };
const fullDiskBody = {
  error: { code: 'insufficient_storage', message: 'disk full', retry_after_seconds: 60 },
  meta: { request_id: 'req-0001' },
};

const methodBody = {
  error: { code: 'method_not_allowed', message: 'use POST' },
  meta: { request_id: 'req-0001' },
};

function exchange(
  over: Partial<Omit<Exchange, 'headers' | 'body'>> & { headers: Record<string, string>; body: unknown },
): Exchange {
  return {
    method: over.method ?? 'POST',
    url: over.url ?? 'http://127.0.0.1:1/api/v1/compress',
    status: over.status ?? 200,
    headers: new Headers(over.headers),
    ...(over.refusedByHttpLayer === undefined ? {} : { refusedByHttpLayer: over.refusedByHttpLayer }),
    body: over.body instanceof Uint8Array ? over.body : new TextEncoder().encode(JSON.stringify(over.body)),
  };
}

describe('checkExchange', () => {
  it('accepts a conforming compress response', () => {
    expect(checkExchange(exchange({ headers: limited, body: compressBody }))).toEqual([]);
  });

  const notHttp = {
    error: { code: 'invalid_input', message: 'not HTTP/1.1' },
    meta: { request_id: 'req-0001' },
  };

  it.each<[string, Exchange]>([
    [
      'a request the HTTP layer refused, on an operation path, without rate-limit headers',
      exchange({ status: 400, headers: plainError, body: notHttp, refusedByHttpLayer: true }),
    ],
    [
      'a 405 with the right Allow',
      exchange({
        url: '/healthz',
        method: 'POST',
        status: 405,
        headers: { 'x-request-id': 'req-0001', 'content-type': 'application/json', allow: 'GET, HEAD' },
        body: methodBody,
      }),
    ],
    [
      'an HTTP-layer 431 on any operation',
      exchange({
        status: 431,
        headers: { 'x-request-id': 'req-0001', 'content-type': 'application/json' },
        body: {
          error: { code: 'invalid_input', message: 'headers too large' },
          meta: { request_id: 'req-0001' },
        },
      }),
    ],
    ['a 507 with its retry hint', exchange({ status: 507, headers: plainError, body: fullDiskBody })],
    [
      'a 503 from a draining server on an unknown path',
      exchange({
        url: '/nope',
        method: 'GET',
        status: 503,
        headers: plainError,
        body: {
          error: { code: 'service_unavailable', message: 'shutting down', retry_after_seconds: 5 },
          meta: { request_id: 'req-0001' },
        },
      }),
    ],
    [
      'an HTTP-layer 417',
      exchange({
        url: '/healthz',
        method: 'GET',
        status: 417,
        headers: plainError,
        body: { error: { code: 'invalid_input', message: 'Expect' }, meta: { request_id: 'req-0001' } },
      }),
    ],
    [
      'a templated path (/docs/{asset})',
      exchange({
        url: '/docs/swagger-ui.css',
        method: 'GET',
        headers: { 'x-request-id': 'req-0001', 'content-type': 'text/css; charset=utf-8' },
        body: new TextEncoder().encode('body{}'),
      }),
    ],
  ])('accepts %s', (_name, given) => {
    expect(checkExchange(given)).toEqual([]);
  });

  it('accepts Enterprise headers without the IETF pair', () => {
    expect(checkExchange(exchange({ headers: unlimited, body: compressBody }))).toEqual([]);
  });

  const broken: [string, Exchange, RegExp][] = [
    [
      'missing X-Request-Id',
      exchange({ headers: { ...limited, 'x-request-id': '' }, body: compressBody }),
      /X-Request-Id/,
    ],
    [
      'X-Request-Id differs from meta',
      exchange({ headers: { ...limited, 'x-request-id': 'other' }, body: compressBody }),
      /differs/,
    ],
    [
      'missing rate-limit header',
      exchange({ headers: { ...limited, 'x-ratelimit-reset': '' }, body: compressBody }),
      /X-RateLimit-Reset/,
    ],
    [
      'IETF header on Enterprise',
      exchange({ headers: { ...unlimited, ratelimit: '"hourly";r=1;t=1' }, body: compressBody }),
      /omitted/,
    ],
    [
      'RateLimit t disagrees with X-RateLimit-Reset',
      exchange({ headers: { ...limited, ratelimit: '"hourly";r=9;t=60' }, body: compressBody }),
      /disagrees/,
    ],
    [
      'RateLimit-Policy disagrees',
      exchange({ headers: { ...limited, 'ratelimit-policy': '"hourly";q=11;w=3600' }, body: compressBody }),
      /q=10/,
    ],
    ['extra body field', exchange({ headers: limited, body: { ...compressBody, extra: 1 } }), /additional/],
    [
      'negative savings',
      exchange({
        headers: limited,
        body: { ...compressBody, data: { ...compressBody.data, savings_percent: -1 } },
      }),
      /savings_percent/,
    ],
    [
      'undocumented status',
      exchange({ status: 418, headers: limited, body: compressBody }),
      /not documented/,
    ],
    [
      '429 without Retry-After',
      exchange({
        status: 429,
        headers: { ...limited, 'x-ratelimit-remaining': '0', ratelimit: '"hourly";r=0;t=3600' },
        body: rateLimitedBody,
      }),
      /Retry-After/,
    ],
    [
      'status and code disagree',
      exchange({ status: 400, headers: limited, body: rateLimitedBody }),
      /means invalid_input/,
    ],
    [
      'rate-limit headers on 401',
      exchange({
        status: 401,
        headers: limited,
        body: { error: { code: 'unauthorized', message: 'no key' }, meta: { request_id: 'req-0001' } },
      }),
      /401 carries/,
    ],
    [
      'a 400 of the operation without its rate-limit headers',
      exchange({ status: 400, headers: plainError, body: notHttp }),
      /documented header X-RateLimit-Limit is missing/,
    ],
    [
      'rate-limit headers on an answer of the HTTP layer',
      exchange({ status: 400, headers: limited, body: notHttp, refusedByHttpLayer: true }),
      /an answer of the HTTP layer carries X-RateLimit-Limit/,
    ],
    [
      'unknown route not 404',
      exchange({ url: '/nope', method: 'GET', status: 200, headers: limited, body: compressBody }),
      /status 200 is not documented for this no-path/,
    ],
    [
      'wrong method without Allow',
      exchange({
        url: '/api/v1/merge',
        method: 'GET',
        status: 405,
        headers: { 'x-request-id': 'req-0001', 'content-type': 'application/json' },
        body: methodBody,
      }),
      /Allow null should name POST/,
    ],
    [
      'wrong method with the wrong Allow',
      exchange({
        url: '/healthz',
        method: 'POST',
        status: 405,
        headers: { 'x-request-id': 'req-0001', 'content-type': 'application/json', allow: 'GET' },
        body: methodBody,
      }),
      /should name GET, HEAD/,
    ],
    [
      'an HTTP-layer status with the wrong code',
      exchange({
        status: 431,
        headers: { 'x-request-id': 'req-0001', 'content-type': 'application/json' },
        body: rateLimitedBody,
      }),
      /means invalid_input/,
    ],
    [
      'a 507 without its retry hint',
      exchange({
        status: 507,
        headers: plainError,
        body: { error: { code: 'insufficient_storage', message: 'full' }, meta: { request_id: 'req-0001' } },
      }),
      /retry_after_seconds is missing on a 507/,
    ],
    [
      'a retry hint on a 400',
      exchange({
        status: 400,
        headers: plainError,
        body: {
          error: { code: 'invalid_input', message: 'bad', retry_after_seconds: 1 },
          meta: { request_id: 'req-0001' },
        },
      }),
      /retry_after_seconds is present on a 400/,
    ],
    [
      'Retry-After on a 507',
      exchange({ status: 507, headers: { ...plainError, 'retry-after': '60' }, body: fullDiskBody }),
      /a 507 carries Retry-After/,
    ],
    [
      'download without attachment',
      exchange({
        url: '/api/get-pdf.php?file=a',
        method: 'GET',
        headers: { 'x-request-id': 'r', 'content-type': 'application/pdf' },
        body: new TextEncoder().encode('%PDF-1.7'),
      }),
      /Content-Disposition/,
    ],
  ];
  it.each(broken)('rejects %s', (_name, given, want) => {
    const problems = checkExchange(given);
    expect(problems.join('\n')).toMatch(want);
  });
});
