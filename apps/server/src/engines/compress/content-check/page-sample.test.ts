import { describe, expect, it } from 'vitest';
import { SAMPLE_PAGES, samplePages } from './page-sample.js';

// [page count, pages compared]: first, last and evenly spread between, never more than SAMPLE_PAGES.
const table: [number, number[]][] = [
  [1, [1]],
  [2, [1, 2]],
  [5, [1, 2, 3, 4, 5]],
  [6, [1, 2, 4, 5, 6]],
  [7, [1, 3, 4, 6, 7]],
  [100, [1, 26, 51, 75, 100]],
  [5000, [1, 1251, 2501, 3750, 5000]],
];

describe('samplePages', () => {
  it.each(table)('%s pages -> %j', (pageCount, want) => {
    expect(samplePages(pageCount)).toEqual(want);
    expect(want.length).toBeLessThanOrEqual(SAMPLE_PAGES);
  });
});
