import { describe, expect, it } from 'vitest';
import { pollDelayMs } from './poll-interval.js';

describe('pollDelayMs', () => {
  const table: [string, { given: unknown; want: number }][] = [
    ['the server suggests 2 s', { given: 2, want: 2_000 }],
    ['fractions of a second', { given: 0.5, want: 500 }],
    ['0 is raised to the floor', { given: 0, want: 200 }],
    ['a negative number too', { given: -3, want: 200 }],
    ['an hour is cut to the ceiling', { given: 3600, want: 30_000 }],
    ['absent: one second', { given: undefined, want: 1_000 }],
    ['not a number: one second', { given: '5', want: 1_000 }],
    ['infinite: one second', { given: Number.POSITIVE_INFINITY, want: 1_000 }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(pollDelayMs(given)).toBe(want);
  });
});
