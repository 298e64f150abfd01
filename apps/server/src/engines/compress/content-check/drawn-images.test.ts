import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { photoPdf, textPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../../tools.js';
import { drawnImages, imagesPerPage } from './drawn-images.js';

const { pdfimages } = await detectTools();
if (pdfimages === undefined) console.warn('pdfimages is not installed: the drawn images tests are skipped');

const HEAD = [
  'page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio',
  '--------------------------------------------------------------------------------------------',
];

describe('imagesPerPage', () => {
  // [name, { given: [pdfimages -list output, sampled pages], want: images per page }]
  const table: [string, { given: [string[], number[]]; want: [number, number][] }][] = [
    [
      'no images',
      {
        given: [HEAD, [1, 2]],
        want: [
          [1, 0],
          [2, 0],
        ],
      },
    ],
    [
      'images and stencils count, soft masks and explicit masks are part of their image',
      {
        given: [
          [
            ...HEAD,
            '   1     0 image    2400  1800  rgb     3   8  jpeg   no         4  0    96    96  799K 6.3%',
            '   1     1 smask    2400  1800  gray    1   8  image  no         5  0    96    96  10K 0.3%',
            '   1     2 stencil    16    16  -       1   1  image  no   [inline]       300   300    2B 6.2%',
            '   3     3 mask       16    16  -       1   1  image  no         9  0   300   300    2B 6.2%',
          ],
          [1, 3],
        ],
        want: [
          [1, 2],
          [3, 0],
        ],
      },
    ],
    [
      "pages outside the sample and a second run's headings",
      {
        given: [[...HEAD, '   2     0 image 1 1 gray 1 8 image no 4 0 72 72 1B 100%', ...HEAD], [1]],
        want: [[1, 0]],
      },
    ],
  ];
  it.each(table)('%s', (_name, { given: [lines, pages], want }) => {
    expect([...imagesPerPage(lines.join('\n'), pages)]).toEqual(want);
  });
});

describe.skipIf(pdfimages === undefined)('drawnImages', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-images-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    [
      'photos, one a page',
      () => photoPdf({ pages: 2 }),
      [1, 2],
      [
        [1, 1],
        [2, 1],
      ],
    ],
    [
      'photos, the pages between the sampled ones counted too',
      () => photoPdf({ pages: 3 }),
      [1, 3],
      [
        [1, 1],
        [2, 1],
        [3, 1],
      ],
    ],
    [
      'text',
      () => textPdf({ pages: 60 }),
      [1, 30, 60],
      [
        [1, 0],
        [30, 0],
        [60, 0],
      ],
    ],
  ] as const)('%s', { timeout: 60_000 }, async (name, bytes, pages, want) => {
    const path = await writeFixture(dir, `${name.replaceAll(/\W/g, '-')}.pdf`, await bytes());
    const job = { workDir: await mkdtemp(join(dir, 'job-')), signal: new AbortController().signal };
    const counted = await drawnImages(
      pdfimages as NonNullable<typeof pdfimages>,
      { path, pages, name: 'x' },
      60_000,
      job,
    );
    expect('value' in counted && [...counted.value]).toEqual(want);
  });
});
