import { describe, expect, it } from 'vitest';
import { preferredWait, prefersAsync } from './prefer.js';

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

describe('preferredWait', () => {
  const table: [string, number | undefined][] = [
    ['', undefined],
    ['wait=5', 5],
    ['respond-async, wait=3', 3],
    ['Wait = 7', 7],
    ['wait=600', 10],
    ['wait=0', 0],
    ['wait=-1', undefined],
    ['wait=soon', undefined],
    ['wait', undefined],
  ];
  it.each(table)('%j -> %s', (header, want) => {
    expect(preferredWait(header, 10)).toBe(want);
  });
});
