import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { textPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../../tools.js';
import { MAX_GAP_PAGES, pdftoppmRuns, popplerRenderer } from './poppler-renderer.js';

const { pdftoppm } = await detectTools();
if (pdftoppm === undefined) console.warn('pdftoppm is not installed: the poppler renderer tests are skipped');

describe('pdftoppmRuns', () => {
  const none = () => false;
  const unknown = () => undefined;
  const onPage7 = (page: number) => page === 7;
  // [name, { given: sampled pages and what is known of images, want: pdftoppm's runs }]
  const table: [string, { given: [number[], (page: number) => boolean | undefined]; want: number[][] }][] = [
    ['one page', { given: [[1], unknown], want: [[1, 1]] }],
    ['a range, nothing known', { given: [[1, 2, 3, 4, 5], unknown], want: [[1, 5]] }],
    [
      'a spread, nothing known: one run per page',
      {
        given: [[1, 3, 6, 8, 10], unknown],
        want: [
          [1, 1],
          [3, 3],
          [6, 6],
          [8, 8],
          [10, 10],
        ],
      },
    ],
    ['a spread over pages without images: one run', { given: [[1, 3, 6, 8, 10], none], want: [[1, 10]] }],
    [
      'an image between two sampled pages: a run either side',
      {
        given: [[1, 3, 6, 8, 10], onPage7],
        want: [
          [1, 6],
          [8, 10],
        ],
      },
    ],
    [
      'gaps longer than MAX_GAP_PAGES: one run per page',
      {
        given: [[1, MAX_GAP_PAGES + 3, 2 * MAX_GAP_PAGES + 5], none],
        want: [
          [1, 1],
          [MAX_GAP_PAGES + 3, MAX_GAP_PAGES + 3],
          [2 * MAX_GAP_PAGES + 5, 2 * MAX_GAP_PAGES + 5],
        ],
      },
    ],
    [
      'a gap of exactly MAX_GAP_PAGES: one run',
      { given: [[1, MAX_GAP_PAGES + 2], none], want: [[1, MAX_GAP_PAGES + 2]] },
    ],
  ];
  it.each(table)('%s', (_name, { given: [pages, drawsImages], want }) => {
    expect(pdftoppmRuns(pages, drawsImages)).toEqual(want);
  });
});

describe.skipIf(pdftoppm === undefined)('popplerRenderer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdn-poppler-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // [name, { given: sampled pages of a 12-page file, want: the files, in the order asked for }]
  it.each([
    [
      'a range, pages padded to two digits',
      { given: [1, 2, 3], want: ['r-page-01.pgm', 'r-page-02.pgm', 'r-page-03.pgm'] },
    ],
    [
      'a spread, one run per page',
      { given: [1, 6, 12], want: ['s-page-1.pgm', 's-page-6.pgm', 's-page-12.pgm'] },
    ],
    [
      'a spread over pages known to draw no image, one run',
      { given: [1, 6, 12], want: ['t-page-01.pgm', 't-page-06.pgm', 't-page-12.pgm'] },
    ],
  ] as const)('%s', { timeout: 60_000 }, async (name, { given, want }) => {
    const path = await writeFixture(dir, 'twelve.pdf', await textPdf({ pages: 12 }));
    const workDir = await mkdtemp(join(dir, 'job-'));
    const renderer = popplerRenderer(pdftoppm as NonNullable<typeof pdftoppm>, 60_000);
    const known = name.includes('known');
    const target = {
      path,
      pages: given,
      name: name.startsWith('a range') ? 'r' : known ? 't' : 's',
      drawsImages: known ? () => false : undefined,
    };
    const rendered = await renderer.render(target, 20, { workDir, signal: new AbortController().signal });
    expect('value' in rendered && rendered.value.map((file) => basename(file))).toEqual(want);
  });

  it('draws in colour where asked', { timeout: 60_000 }, async () => {
    const path = await writeFixture(dir, 'two.pdf', await textPdf({ pages: 2 }));
    const workDir = await mkdtemp(join(dir, 'job-'));
    const renderer = popplerRenderer(pdftoppm as NonNullable<typeof pdftoppm>, 60_000);
    const target = { path, pages: [1, 2], name: 'c', colour: true };
    const rendered = await renderer.render(target, 20, { workDir, signal: new AbortController().signal });
    expect('value' in rendered && rendered.value.map((file) => basename(file))).toEqual([
      'c-page-1.ppm',
      'c-page-2.ppm',
    ]);
  });

  it('fails on a file it cannot open', async () => {
    const path = await writeFixture(dir, 'not-a-pdf.pdf', new TextEncoder().encode('hello'));
    const workDir = await mkdtemp(join(dir, 'job-'));
    const renderer = popplerRenderer(pdftoppm as NonNullable<typeof pdftoppm>, 60_000);
    const rendered = await renderer.render({ path, pages: [1], name: 'x' }, 20, {
      workDir,
      signal: new AbortController().signal,
    });
    expect(rendered).toEqual({ failure: expect.stringMatching(/^rendering: pdftoppm exited with 1/) });
  });
});
