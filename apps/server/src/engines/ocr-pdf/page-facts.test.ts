import { describe, expect, it } from 'vitest';
import { parseImageList, parsePdfinfoPage } from './page-facts.js';

describe('parsePdfinfoPage', () => {
  it('reads the size and rotation of `pdfinfo -f N -l N`', () => {
    const output =
      'Pages:           4\nPage    2 size:  792 x 612.5 pts (letter)\nPage    2 rot:   270\nFile size: 1 bytes\n';
    expect(parsePdfinfoPage(output)).toEqual({ width: 792, height: 612.5, rotation: 270 });
  });
});

describe('parseImageList', () => {
  const header =
    'page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio\n' +
    '--------------------------------------------------------------------------------------------\n';
  const cases: [string, { rows: string; want: ReturnType<typeof parseImageList> }][] = [
    ['no images: a vector page', { rows: '', want: { imagePpi: undefined, largestImagePixels: 0 } }],
    [
      'the highest resolution and the largest image; soft masks are not images of their own',
      {
        rows:
          '   1     0 image    1700  2200  gray    1   8  jpeg   no         7  0   200   200  174K 4.8%\n' +
          '   1     1 image     300   300  rgb     3   8  image  no         9  0    72    96  10K 4.8%\n' +
          '   1     2 smask   9000  9000  gray    1   8  image  no        10  0   900   900  10K 4.8%\n',
        want: { imagePpi: 200, largestImagePixels: 1700 * 2200 },
      },
    ],
  ];
  it.each(cases)('%s', (_, { rows, want }) => expect(parseImageList(header + rows)).toEqual(want));
});
