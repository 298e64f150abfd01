import { describe, expect, it } from 'vitest';
import { pdftotextRanges } from './word-readers.js';

describe('pdftotextRanges', () => {
  // [sampled pages, ranges read]
  const table: [number[], [number, number][]][] = [
    [[1], [[1, 1]]],
    [[1, 3, 6, 8, 10], [[1, 10]]],
    [[1, 13, 26, 38, 50], [[1, 50]]],
    [
      [1, 26, 51, 75, 100],
      [
        [1, 1],
        [26, 26],
        [51, 51],
        [75, 75],
        [100, 100],
      ],
    ],
  ];
  it.each(table)('%j -> %j', (pages, want) => {
    expect(pdftotextRanges(pages)).toEqual(want);
  });
});
