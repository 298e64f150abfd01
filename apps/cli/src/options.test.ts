import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseNonNegativeInt, parsePositiveInt } from './options.js';

describe('numeric flags', () => {
  const cases: [string, { parse: (value: string) => number; given: string; want: number | 'error' }][] = [
    ['concurrency 4', { parse: parsePositiveInt, given: '4', want: 4 }],
    ['concurrency 0 is refused', { parse: parsePositiveInt, given: '0', want: 'error' }],
    ['concurrency -1 is refused', { parse: parsePositiveInt, given: '-1', want: 'error' }],
    ['concurrency 1.5 is refused', { parse: parsePositiveInt, given: '1.5', want: 'error' }],
    ['empty is not 0', { parse: parsePositiveInt, given: '', want: 'error' }],
    ['exponent notation is refused', { parse: parsePositiveInt, given: '1e3', want: 'error' }],
    ['max-retries 0 turns retries off', { parse: parseNonNegativeInt, given: '0', want: 0 }],
    ['max-retries with spaces', { parse: parseNonNegativeInt, given: ' 3 ', want: 3 }],
    ['max-retries word', { parse: parseNonNegativeInt, given: 'many', want: 'error' }],
  ];
  it.each(cases)('%s', (_name, { parse, given, want }) => {
    if (want === 'error') expect(() => parse(given)).toThrow(InvalidArgumentError);
    else expect(parse(given)).toBe(want);
  });
});
