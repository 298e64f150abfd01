import { describe, expect, it } from 'vitest';
import { parsePdfInfo, sizeGroups } from './ghostscript-renderer.js';

describe('parsePdfInfo', () => {
  // [name, { given: Ghostscript -dPDFINFO output, want: [page, width, height] }]
  const table: [string, { given: string; want: [number, number, number][] }][] = [
    ['nothing reported', { given: '', want: [] }],
    [
      'Letter pages, one turned by its box',
      {
        given:
          '        File has 4 pages\nPage 1 MediaBox: [0 0 612 792]     Page contains Annotations\n' +
          'Page 2 MediaBox: [0 0 792 612]\n',
        want: [
          [1, 612, 792],
          [2, 792, 612],
        ],
      },
    ],
    [
      'a crop box clipped to the media box, and Rotate',
      {
        given: 'Page 3 MediaBox: [-10 20 400.5 620] CropBox: [10 10 400 600]    Rotate = 90 \n',
        want: [[3, 580, 390]],
      },
    ],
    [
      'UserUnit, which Ghostscript applies',
      { given: 'Page 1 UserUnit: 10.000000  MediaBox: [0 0 1800 3600]\n', want: [[1, 18_000, 36_000]] },
    ],
    ['an unreadable box is skipped', { given: 'Page 1 MediaBox: [0 0 abc]\n', want: [] }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    expect([...parsePdfInfo(given)].map(([page, size]) => [page, size.width, size.height])).toEqual(want);
  });
});

describe('sizeGroups', () => {
  it('puts pages of one size together, each group in page order', () => {
    const shown = { width: 612, height: 792 };
    const image = (page: number, width: number) => ({ page, shown, width, height: 100 });
    const groups = sizeGroups([image(1, 200), image(2, 300), image(3, 200), image(5, 300)]);
    expect(groups.map((group) => group.map((planned) => planned.page))).toEqual([
      [1, 3],
      [2, 5],
    ]);
  });
});
