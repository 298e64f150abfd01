import { describe, expect, it } from 'vitest';
import { pageListText, selectPages } from './page-selection.js';

describe('selectPages', () => {
  const cases: [string, { raw: string | undefined; count: number; want: number[] }][] = [
    ['every page when not given', { raw: undefined, count: 3, want: [1, 2, 3] }],
    ['ranges and single pages, ascending', { raw: '5,1-2', count: 5, want: [1, 2, 5] }],
    ['a page named twice, read once', { raw: '2,1-3', count: 3, want: [1, 2, 3] }],
  ];
  it.each(cases)('%s', (_, { raw, count, want }) => expect(selectPages(raw, count)).toEqual(want));

  it('refuses a page past the end as split does', () => {
    expect(() => selectPages('4', 3)).toThrow(/the document has 3 pages/);
  });
});

describe('pageListText', () => {
  const cases: [number[], string][] = [
    [[1], '1'],
    [[1, 2, 3, 7], '1-3,7'],
    [[2, 4, 5, 6, 9, 10], '2,4-6,9-10'],
  ];
  it.each(cases)('%j -> %s', (pages, want) => expect(pageListText(pages)).toBe(want));
});
