import { describe, expect, it } from 'vitest';
import {
  AbortError,
  ApiError,
  AuthenticationError,
  ConnectionError,
  ConverterUnavailableError,
  InsufficientStorageError,
  InternalServerError,
  InvalidInputError,
  RateLimitError,
  ServiceUnavailableError,
  TimeoutError,
} from '../errors.js';
import { backoffDelay, retryDelay, shouldRetry } from './retry.js';

describe('shouldRetry', () => {
  const table: Array<[string, { given: unknown; want: boolean }]> = [
    ['429', { given: new RateLimitError('slow down', { status: 429 }), want: true }],
    ['500', { given: new InternalServerError('boom', { status: 500 }), want: true }],
    ['503 from a proxy', { given: new InternalServerError('busy', { status: 503 }), want: true }],
    [
      '503 from a draining server',
      { given: new ServiceUnavailableError('stopping', { status: 503 }), want: true },
    ],
    [
      '507: a full disk seldom clears in time',
      { given: new InsufficientStorageError('full', { status: 507 }), want: false },
    ],
    [
      '501 converter_unavailable: the server lacks the converter',
      { given: new ConverterUnavailableError('no LibreOffice', { status: 501 }), want: false },
    ],
    ['connection refused', { given: new ConnectionError('refused'), want: true }],
    ['timeout', { given: new TimeoutError(1000), want: true }],
    ['400', { given: new InvalidInputError('bad', { status: 400 }), want: false }],
    ['401', { given: new AuthenticationError('who', { status: 401 }), want: false }],
    ['405', { given: new ApiError('method_not_allowed', 'no', { status: 405 }), want: false }],
    [
      '409 idempotency_in_progress: the first attempt still runs',
      { given: new ApiError('idempotency_in_progress', 'wait', { status: 409 }), want: true },
    ],
    [
      '422 idempotency_key_reused',
      { given: new ApiError('idempotency_key_reused', 'no', { status: 422 }), want: false },
    ],
    ['refused by the SDK before sending', { given: new InvalidInputError('bad'), want: false }],
    ['caller abort', { given: new AbortError(), want: false }],
    ['a programming error', { given: new TypeError('x is undefined'), want: false }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(shouldRetry(given)).toBe(want);
  });
});

describe('backoffDelay', () => {
  const table: Array<[string, { retry: number; random: number; want: number }]> = [
    ['first retry, no jitter', { retry: 1, random: 0, want: 500 }],
    ['second retry doubles', { retry: 2, random: 0, want: 1000 }],
    ['fifth retry', { retry: 5, random: 0, want: 8000 }],
    ['capped at 8 s', { retry: 10, random: 0, want: 8000 }],
    ['jitter shortens by up to a quarter', { retry: 2, random: 1, want: 750 }],
    ['half jitter', { retry: 3, random: 0.5, want: 1750 }],
  ];
  it.each(table)('%s', (_name, { retry, random, want }) => {
    expect(backoffDelay(retry, () => random)).toBe(want);
  });
});

describe('retryDelay', () => {
  const withRetryAfter = (value: string) =>
    new RateLimitError('limited', { status: 429, headers: new Headers({ 'Retry-After': value }) });
  const table: Array<[string, { error: unknown; want: number | undefined }]> = [
    ['Retry-After within the cap is honoured', { error: withRetryAfter('30'), want: 30_000 }],
    ['Retry-After at the cap is honoured', { error: withRetryAfter('60'), want: 60_000 }],
    ['Retry-After beyond the cap: do not retry', { error: withRetryAfter('3541'), want: undefined }],
    ['no Retry-After: backoff', { error: new InternalServerError('boom', { status: 500 }), want: 1000 }],
    ['unparsable Retry-After: backoff', { error: withRetryAfter('later'), want: 1000 }],
    [
      "a 503's hint in the envelope",
      { error: new ServiceUnavailableError('stopping', { status: 503, retryAfter: 5 }), want: 5_000 },
    ],
    [
      "a 503's hint beyond the cap: do not retry",
      { error: new ServiceUnavailableError('stopping', { status: 503, retryAfter: 600 }), want: undefined },
    ],
    [
      'a 503 without a hint: backoff',
      { error: new ServiceUnavailableError('stopping', { status: 503 }), want: 1000 },
    ],
    ['connection error: backoff', { error: new ConnectionError('reset'), want: 1000 }],
  ];
  it.each(table)('%s', (_name, { error, want }) => {
    expect(retryDelay(error, 2, 60_000, () => 0)).toBe(want);
  });
});
