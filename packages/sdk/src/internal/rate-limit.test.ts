import { describe, expect, it } from 'vitest';
import type { RateLimitInfo } from '../results.js';
import { parseRateLimit } from './rate-limit.js';

describe('parseRateLimit (openapi.yaml "Rate limits")', () => {
  const table: Array<[string, { given: Record<string, string>; want: RateLimitInfo | undefined }]> = [
    [
      'a counted plan',
      {
        given: {
          'X-RateLimit-Limit': '1000',
          'X-RateLimit-Remaining': '998',
          'X-RateLimit-Reset': '1800000000',
        },
        want: { limit: 1000, remaining: 998, reset: new Date(1_800_000_000_000) },
      },
    ],
    [
      'Enterprise: unlimited',
      {
        given: {
          'X-RateLimit-Limit': 'unlimited',
          'X-RateLimit-Remaining': 'unlimited',
          'X-RateLimit-Reset': '1800000000',
        },
        want: { limit: null, remaining: null, reset: new Date(1_800_000_000_000) },
      },
    ],
    [
      'exhausted',
      {
        given: { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1800000000' },
        want: { limit: 10, remaining: 0, reset: new Date(1_800_000_000_000) },
      },
    ],
    ['no headers (a 401 carries none)', { given: {}, want: undefined }],
    [
      'a missing reset',
      { given: { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '3' }, want: undefined },
    ],
    [
      'a malformed count',
      {
        given: {
          'X-RateLimit-Limit': 'ten',
          'X-RateLimit-Remaining': '3',
          'X-RateLimit-Reset': '1800000000',
        },
        want: undefined,
      },
    ],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(parseRateLimit(new Headers(given))).toEqual(want);
  });
});
