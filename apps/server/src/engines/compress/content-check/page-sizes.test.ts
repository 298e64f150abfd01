import { describe, expect, it } from 'vitest';
import { longestSides, renderDpi } from './page-sizes.js';

describe('longestSides', () => {
  // [name, { given: Ghostscript -dPDFINFO output, want: [page, longest side in points] pairs }]
  const table: [string, { given: string; want: [number, number][] }][] = [
    ['nothing reported', { given: '', want: [] }],
    [
      'Letter pages, one turned (Ghostscript 10.00 on a generated file)',
      {
        given:
          '        File has 4 pages\nPage 1 MediaBox: [0 0 612 792]     Page contains Annotations\n' +
          'Page 2 MediaBox: [0 0 792 612]\n',
        want: [
          [1, 792],
          [2, 792],
        ],
      },
    ],
    [
      "OCRmyPDF's poster.pdf: UserUnit 10",
      { given: 'Page 1 UserUnit: 10.000000  MediaBox: [0 0 1800 3600]\n', want: [[1, 36_000]] },
    ],
    [
      'a box not at the origin, with a CropBox and Rotate',
      {
        given: 'Page 3 MediaBox: [-10 20 400.5 620] CropBox: [10 10 400 600]    Rotate = 90 \n',
        want: [[3, 600]],
      },
    ],
    ['an unreadable box is skipped', { given: 'Page 1 MediaBox: [0 0 abc]\n', want: [] }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect([...longestSides(given)]).toEqual(want);
  });
});

describe('renderDpi', () => {
  const sides = new Map([
    [1, 792],
    [2, 36_000],
    [3, 3.84],
    [4, 120],
  ]);
  const bounds = { dpi: 40, minSidePx: 200, maxSidePx: 2000 };
  // [name, { given: pages rendered, want: dpi }] at 40 dpi, 200 to 2000 pixels on the longest side
  const table: [string, { given: number[]; want: number }][] = [
    ['a Letter page', { given: [1], want: 40 }],
    ['a 500-inch poster among them: all at its resolution', { given: [1, 2], want: 4 }],
    ["ImageMagick's 0.05-inch page", { given: [3], want: 3750 }],
    ['a 1.7-inch page', { given: [4], want: 120 }],
    ['a tiny page beside a poster: the poster bounds it', { given: [2, 3], want: 4 }],
    ['a page Ghostscript did not report', { given: [7], want: 40 }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect(renderDpi(sides, given, bounds)).toBe(want);
  });
});
