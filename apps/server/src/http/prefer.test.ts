import { describe, expect, it } from 'vitest';
import { prefersAsync } from './prefer.js';

describe('prefersAsync', () => {
  const table: [string, boolean][] = [
    ['', false],
    ['respond-async', true],
    ['Respond-Async', true],
    ['respond-async, wait=10', true],
    ['wait=10,respond-async', true],
    ['respond-async; foo=bar', true],
    ['return=minimal', false],
    ['respond-asynchronously', false],
    ['x=respond-async', false],
  ];
  it.each(table)('%j -> %s', (header, want) => {
    expect(prefersAsync(header)).toBe(want);
  });
});
