import {
  AuthenticationError,
  ConnectionError,
  InvalidInputError,
  RateLimitError,
  TimeoutError,
} from '@pdn/sdk';
import { describe, expect, it } from 'vitest';
import { OutputExistsError } from './errors.js';
import { commandReport, type ErrorReport, errorReport, itemReport } from './report.js';

describe('errorReport', () => {
  const cases: [string, { given: unknown; want: ErrorReport }][] = [
    [
      'a server error keeps code, status and request id',
      {
        given: new InvalidInputError('not a PDF', { status: 400, requestId: 'req_1' }),
        want: { code: 'invalid_input', message: 'not a PDF', status: 400, request_id: 'req_1' },
      },
    ],
    [
      'a rate limit adds retry_after',
      {
        given: new RateLimitError('Free plan: 10 per hour', {
          status: 429,
          requestId: 'req_2',
          retryAfter: 3400,
        }),
        want: {
          code: 'rate_limited',
          message: 'Free plan: 10 per hour',
          status: 429,
          request_id: 'req_2',
          retry_after: 3400,
        },
      },
    ],
    [
      'a refusal by the SDK has no status',
      {
        given: new InvalidInputError('merge takes 2 to 20 files, got 1'),
        want: {
          code: 'invalid_input',
          message: 'merge takes 2 to 20 files, got 1',
          status: null,
          request_id: null,
        },
      },
    ],
    [
      'a 401',
      {
        given: new AuthenticationError('bad key', { status: 401, requestId: 'req_3' }),
        want: { code: 'unauthorized', message: 'bad key', status: 401, request_id: 'req_3' },
      },
    ],
    [
      'a transport error',
      {
        given: new ConnectionError('connect ECONNREFUSED'),
        want: { code: 'connection_error', message: 'connect ECONNREFUSED', status: null, request_id: null },
      },
    ],
    [
      'a timeout',
      {
        given: new TimeoutError(5),
        want: { code: 'timeout', message: 'Request timed out after 5 ms', status: null, request_id: null },
      },
    ],
    [
      "the CLI's own error",
      {
        given: new OutputExistsError('a.pdf'),
        want: {
          code: 'output_exists',
          message: 'a.pdf already exists; pass --force to overwrite it',
          status: null,
          request_id: null,
        },
      },
    ],
    [
      'anything else',
      {
        given: new Error('EACCES'),
        want: { code: 'unexpected_error', message: 'EACCES', status: null, request_id: null },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { given, want }) => {
    expect(errorReport(given)).toEqual(want);
  });
});

describe('commandReport', () => {
  it('counts each status and is ok only when everything succeeded', () => {
    const stop = new RateLimitError('limit', { status: 429, retryAfter: 60 });
    const report = commandReport('compress', [
      itemReport('a.pdf', { status: 'succeeded', value: { requestId: 'r1', data: { x: 1 }, outputs: [] } }),
      itemReport('b.pdf', { status: 'failed', error: stop }),
      itemReport('c.pdf', { status: 'not_processed', reason: stop }),
    ]);
    expect(report.ok).toBe(false);
    expect(report.summary).toEqual({ total: 3, succeeded: 1, failed: 1, not_processed: 1, skipped: 0 });
    expect(report.results.map((item) => [item.input, item.status, item.error?.code ?? null])).toEqual([
      ['a.pdf', 'succeeded', null],
      ['b.pdf', 'failed', 'rate_limited'],
      ['c.pdf', 'not_processed', 'rate_limited'],
    ]);
    expect(commandReport('languages', []).ok).toBe(true);
  });
});
