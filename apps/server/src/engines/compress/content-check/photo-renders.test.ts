import { describe, expect, it } from 'vitest';
import { COLOUR_FROM_PIXELS, drawInColour, renderGroups, SPLIT_FROM_PIXELS } from './photo-renders.js';

const MP = 1_000_000;

describe('renderGroups', () => {
  // [name, { given: [sampled pages, image pixels per page], want: groups }]
  const table: [string, { given: [number[], Record<number, number>]; want: number[][] }][] = [
    ['text pages: one process', { given: [[1, 2, 3, 4, 5], {}], want: [[1, 2, 3, 4, 5]] }],
    ['one photo page: nothing to split', { given: [[1], { 1: 8 * MP }], want: [[1]] }],
    [
      'four camera pages: two and two',
      {
        given: [[1, 2, 3, 4], { 1: 4.3 * MP, 2: 4.3 * MP, 3: 4.3 * MP, 4: 4.3 * MP }],
        want: [
          [1, 2],
          [3, 4],
        ],
      },
    ],
    [
      'the photos on two pages of five: split between them',
      {
        given: [[1, 3, 5, 8, 10], { 3: 3 * MP, 8: 3 * MP }],
        want: [
          [1, 3],
          [5, 8, 10],
        ],
      },
    ],
    [
      'small images: not worth a start',
      {
        given: [[1, 2, 3], { 1: SPLIT_FROM_PIXELS - 1, 2: 1, 3: SPLIT_FROM_PIXELS - 1 }],
        want: [[1, 2, 3]],
      },
    ],
    [
      'one large photo among small ones: the other share too small',
      { given: [[1, 2, 3], { 1: 10 * MP, 2: 0.5 * MP, 3: 0.5 * MP }], want: [[1, 2, 3]] },
    ],
  ];
  it.each(table)('%s', (_name, { given: [pages, pixels], want }) => {
    expect(renderGroups(pages, (page) => pixels[page] ?? 0)).toEqual(want);
  });
});

describe('drawInColour', () => {
  // [name, { given: [sampled pages, image pixels per page], want }]
  const table: [string, { given: [number[], Record<number, number>]; want: boolean }][] = [
    ['text pages: grey', { given: [[1, 2, 3], {}], want: false }],
    ['a logo: grey', { given: [[1, 2, 3], { 1: 200 * 100 }], want: false }],
    [
      'photos: colour',
      { given: [[1, 2], { 1: COLOUR_FROM_PIXELS / 2, 2: COLOUR_FROM_PIXELS / 2 }], want: true },
    ],
  ];
  it.each(table)('%s', (_name, { given: [pages, pixels], want }) => {
    expect(drawInColour(pages, (page) => pixels[page] ?? 0)).toBe(want);
  });
});
