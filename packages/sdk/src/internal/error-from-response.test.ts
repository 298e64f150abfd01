import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConverterUnavailableError,
  ExpiredError,
  ForbiddenError,
  InsufficientStorageError,
  InternalServerError,
  InvalidInputError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServiceUnavailableError,
} from '../errors.js';
import { errorFromResponse } from './error-from-response.js';

type ErrorClass = new (...args: never[]) => ApiError;

const envelope = (code: string, message: string) => ({
  error: { code, message },
  meta: { request_id: 'req_body' },
});

describe('errorFromResponse: one subclass per wire code', () => {
  const table: Array<[string, { status: number; body: unknown; want: { class: ErrorClass; code: string } }]> =
    [
      [
        '400 invalid_input',
        {
          status: 400,
          body: envelope('invalid_input', 'x'),
          want: { class: InvalidInputError, code: 'invalid_input' },
        },
      ],
      [
        '401 unauthorized',
        {
          status: 401,
          body: envelope('unauthorized', 'x'),
          want: { class: AuthenticationError, code: 'unauthorized' },
        },
      ],
      [
        '403 forbidden',
        { status: 403, body: envelope('forbidden', 'x'), want: { class: ForbiddenError, code: 'forbidden' } },
      ],
      [
        '404 not_found',
        { status: 404, body: envelope('not_found', 'x'), want: { class: NotFoundError, code: 'not_found' } },
      ],
      [
        '410 expired',
        { status: 410, body: envelope('expired', 'x'), want: { class: ExpiredError, code: 'expired' } },
      ],
      [
        '413 payload_too_large',
        {
          status: 413,
          body: envelope('payload_too_large', 'x'),
          want: { class: PayloadTooLargeError, code: 'payload_too_large' },
        },
      ],
      [
        '429 rate_limited',
        {
          status: 429,
          body: envelope('rate_limited', 'x'),
          want: { class: RateLimitError, code: 'rate_limited' },
        },
      ],
      [
        '500 internal_error',
        {
          status: 500,
          body: envelope('internal_error', 'x'),
          want: { class: InternalServerError, code: 'internal_error' },
        },
      ],
      [
        '503 service_unavailable',
        {
          status: 503,
          body: envelope('service_unavailable', 'x'),
          want: { class: ServiceUnavailableError, code: 'service_unavailable' },
        },
      ],
      [
        '503 from a proxy, not JSON',
        {
          status: 503,
          body: undefined,
          want: { class: ServiceUnavailableError, code: 'service_unavailable' },
        },
      ],
      [
        '507 insufficient_storage',
        {
          status: 507,
          body: envelope('insufficient_storage', 'x'),
          want: { class: InsufficientStorageError, code: 'insufficient_storage' },
        },
      ],
      [
        '501 converter_unavailable',
        {
          status: 501,
          body: envelope('converter_unavailable', 'x'),
          want: { class: ConverterUnavailableError, code: 'converter_unavailable' },
        },
      ],
      [
        '501 from a proxy, not JSON',
        { status: 501, body: undefined, want: { class: InternalServerError, code: 'internal_error' } },
      ],
      [
        '502 from a proxy, not JSON',
        { status: 502, body: undefined, want: { class: InternalServerError, code: 'internal_error' } },
      ],
      [
        '405 method_not_allowed',
        {
          status: 405,
          body: envelope('method_not_allowed', 'x'),
          want: { class: ApiError, code: 'method_not_allowed' },
        },
      ],
      [
        '418 with no envelope',
        { status: 418, body: 'teapot', want: { class: ApiError, code: 'invalid_response' } },
      ],
    ];
  it.each(table)('%s', (_name, { status, body, want }) => {
    const error = errorFromResponse(status, new Headers({ 'X-Request-Id': 'req_header' }), body);
    expect(error).toBeInstanceOf(want.class);
    expect(error.constructor).toBe(want.class);
    expect(error.name).toBe(want.class.name);
    expect(error.code).toBe(want.code);
    expect(error.status).toBe(status);
    expect(error.headers.get('x-request-id')).toBe('req_header');
  });

  it('takes the message and request id from the envelope', () => {
    const error = errorFromResponse(
      400,
      new Headers({ 'X-Request-Id': 'req_header' }),
      envelope('invalid_input', 'ranges: item "0" is not a page'),
    );
    expect(error.message).toBe('ranges: item "0" is not a page');
    expect(error.requestId).toBe('req_body');
  });

  it('falls back to the X-Request-Id header and the status when the body is not an envelope', () => {
    const error = errorFromResponse(502, new Headers({ 'X-Request-Id': 'req_header' }), undefined);
    expect(error.requestId).toBe('req_header');
    expect(error.message).toBe('HTTP 502 with no error envelope');
  });

  it.each<[number, ErrorClass]>([
    [503, ServiceUnavailableError],
    [507, InsufficientStorageError],
  ])("gives a %i the envelope's retry hint as retryAfter", (status, Class) => {
    const body = {
      error: { code: 'x', message: 'later', retry_after_seconds: 5 },
      meta: { request_id: 'r' },
    };
    const error = errorFromResponse(status, new Headers(), body);
    expect(error).toBeInstanceOf(Class);
    expect((error as ServiceUnavailableError | InsufficientStorageError).retryAfter).toBe(5);
    expect(
      (errorFromResponse(status, new Headers(), envelope('x', 'y')) as ServiceUnavailableError).retryAfter,
    ).toBeUndefined();
  });

  it('gives a RateLimitError its Retry-After in seconds and the rate-limit state', () => {
    const headers = new Headers({
      'Retry-After': '3541',
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '1800000000',
    });
    const error = errorFromResponse(
      429,
      headers,
      envelope('rate_limited', 'Free plan: 10 requests per hour'),
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(3541);
    expect((error as RateLimitError).rateLimit).toEqual({
      limit: 10,
      remaining: 0,
      reset: new Date(1_800_000_000_000),
    });
  });

  it('leaves retryAfter undefined when a 429 has no Retry-After', () => {
    const error = errorFromResponse(429, new Headers(), envelope('rate_limited', 'x')) as RateLimitError;
    expect(error.retryAfter).toBeUndefined();
    expect(error.rateLimit).toBeUndefined();
  });
});
