import { describe, expect, it } from 'vitest';
import { describeWhen, relative } from './when.js';

describe('relative', () => {
  const cases: [number, string][] = [
    [0, 'now'],
    [400, 'now'],
    [1_000, 'in 1 second'],
    [45_000, 'in 45 seconds'],
    [15 * 60_000, 'in 15 minutes'],
    [3586_000, 'in 60 minutes'],
    [2 * 3600_000, 'in 2 hours'],
    [-120_000, '2 minutes ago'],
  ];
  it.each(cases)('%d ms is %s', (ms, want) => {
    expect(relative(ms)).toBe(want);
  });
});

describe('describeWhen', () => {
  it('gives the local clock time and how far away it is', () => {
    const now = new Date(2026, 10, 23, 13, 7, 0);
    expect(describeWhen(new Date(2026, 10, 23, 14, 5, 0), now)).toBe('14:05 (in 58 minutes)');
  });

  it('adds the date when it is another day', () => {
    const now = new Date(2026, 10, 23, 23, 50, 0);
    expect(describeWhen(new Date(2026, 10, 24, 0, 20, 0), now)).toBe('2026-11-24 00:20 (in 30 minutes)');
  });
});
