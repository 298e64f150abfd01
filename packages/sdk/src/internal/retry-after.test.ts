import { describe, expect, it } from 'vitest';
import { parseRetryAfter, parseRetryAfterMs } from './retry-after.js';

const now = Date.UTC(2026, 10, 22, 6, 0, 0); // Sun, 22 Nov 2026 06:00:00 GMT

describe('parseRetryAfter (RFC 9110 section 10.2.3)', () => {
  const table: Array<[string, { given: string | null; want: number | undefined }]> = [
    ['delay-seconds', { given: '120', want: 120_000 }],
    ['zero seconds', { given: '0', want: 0 }],
    ['surrounding whitespace', { given: ' 7 ', want: 7_000 }],
    ['an hour, as a Free plan can ask', { given: '3541', want: 3_541_000 }],
    ['IMF-fixdate in the future', { given: 'Sun, 22 Nov 2026 06:01:30 GMT', want: 90_000 }],
    ['IMF-fixdate in the past is no wait', { given: 'Sun, 22 Nov 2026 05:00:00 GMT', want: 0 }],
    ['obsolete RFC 850 date', { given: 'Sunday, 22-Nov-26 06:00:10 GMT', want: 10_000 }],
    ['obsolete asctime date (UTC by rule)', { given: 'Sun Nov 22 06:00:05 2026', want: 5_000 }],
    ['asctime with a one-digit day', { given: 'Mon Nov  2 06:00:00 2026', want: 0 }],
    ['absent', { given: null, want: undefined }],
    ['empty', { given: '', want: undefined }],
    ['negative seconds', { given: '-5', want: undefined }],
    ['fractional seconds', { given: '1.5', want: undefined }],
    ['a date that does not exist', { given: 'Tue, 31 Feb 2026 06:00:00 GMT', want: undefined }],
    ['a date without GMT', { given: 'Sun, 22 Nov 2026 06:01:30 +0100', want: undefined }],
    ['garbage', { given: 'soon', want: undefined }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(parseRetryAfter(given, now)).toBe(want);
  });

  it('reads a two-digit RFC 850 year more than 50 years ahead as last century', () => {
    // "99" from 2026 is 1999, not 2099: a date far in the past, so no wait.
    expect(parseRetryAfter('Friday, 31-Dec-99 23:59:59 GMT', now)).toBe(0);
  });
});

describe('parseRetryAfterMs', () => {
  const table: Array<[string, { given: string | null; want: number | undefined }]> = [
    ['milliseconds', { given: '2500', want: 2500 }],
    ['a fraction', { given: '12.5', want: 12.5 }],
    ['zero', { given: '0', want: 0 }],
    ['absent', { given: null, want: undefined }],
    ['negative', { given: '-1', want: undefined }],
    ['a date', { given: 'Sun, 22 Nov 2026 06:01:30 GMT', want: undefined }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(parseRetryAfterMs(given)).toBe(want);
  });
});
