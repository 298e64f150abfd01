import { describe, expect, it } from 'vitest';
import { pdftoppmRuns } from './poppler-renderer.js';

describe('pdftoppmRuns', () => {
  const shown = { width: 612, height: 792 };
  const image = (page: number, width: number, height: number) => ({ page, shown, width, height });
  // [name, { given: planned [page, width, height], want: runs [first, last, crop width, crop height] }]
  const table: [string, { given: [number, number, number][]; want: [number, number, number, number][] }][] = [
    [
      'pages of one size: one run',
      {
        given: [
          [1, 1275, 1650],
          [2, 1275, 1650],
          [3, 1275, 1650],
        ],
        want: [[1, 3, 1276, 1651]],
      },
    ],
    [
      'a gap: two runs',
      {
        given: [
          [1, 100, 100],
          [3, 100, 100],
        ],
        want: [
          [1, 1, 101, 101],
          [3, 3, 101, 101],
        ],
      },
    ],
    [
      'a smaller page joins the larger one',
      {
        given: [
          [1, 1275, 1650],
          [2, 800, 600],
        ],
        want: [[1, 2, 1276, 1651]],
      },
    ],
    [
      'a landscape page after a portrait one: its own run, or the area would pass both',
      {
        given: [
          [1, 1275, 1650],
          [2, 1650, 1275],
        ],
        want: [
          [1, 1, 1276, 1651],
          [2, 2, 1651, 1276],
        ],
      },
    ],
  ];
  it.each(table)('%s', (_, { given, want }) => {
    const runs = pdftoppmRuns(given.map(([page, width, height]) => image(page, width, height)));
    expect(runs.map(({ first, last, width, height }) => [first, last, width, height])).toEqual(want);
  });
});
