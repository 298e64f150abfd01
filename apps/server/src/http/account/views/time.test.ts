import { describe, expect, it } from 'vitest';
import { ago, fromNow, utc, waitText } from './time.js';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const MINUTE = 60_000;

describe('times on the account pages', () => {
  it.each([
    ['under a minute', NOW - 59_000, 'just now'],
    ['minutes', NOW - 5 * MINUTE, '5 min ago'],
    ['hours', NOW - 3 * 60 * MINUTE, '3 h ago'],
    ['days', NOW - 3 * 24 * 60 * MINUTE, '3 days ago'],
  ])('ago: %s', (_name, at, want) => {
    expect(ago(at, NOW)).toBe(want);
  });

  it.each([
    ['within the minute', NOW + 30_000, 'in a minute'],
    ['an hour on', NOW + 60 * MINUTE, 'in 60 min'],
    ['past the hour, in hours', NOW + 61 * MINUTE, 'in 1 h'],
    ['a day on', NOW + 24 * 60 * MINUTE, 'in 24 h'],
    ['a day on, less a few seconds', NOW + 24 * 60 * MINUTE - 5_000, 'in 24 h'],
    ['a week on', NOW + 7 * 24 * 60 * MINUTE, 'in 7 days'],
  ])('fromNow: %s', (_name, at, want) => {
    expect(fromNow(at, NOW)).toBe(want);
  });

  it.each([
    [1, 'a second'],
    [12, '12 seconds'],
    [60, 'a minute'],
    [61, '2 minutes'],
    [900, '15 minutes'],
  ])('waitText(%i) is %s', (seconds, want) => {
    expect(waitText(seconds)).toBe(want);
  });

  it('writes instants in UTC to the minute', () => {
    expect(utc(NOW + 59_999)).toBe('2026-01-01 12:00 UTC');
  });
});
