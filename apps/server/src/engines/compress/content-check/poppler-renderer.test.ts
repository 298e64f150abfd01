import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { textPdf, writeFixture } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../../tools.js';
import { isRange, popplerRenderer } from './poppler-renderer.js';

const { pdftoppm } = await detectTools();
if (pdftoppm === undefined) console.warn('pdftoppm is not installed: the poppler renderer tests are skipped');

describe('isRange', () => {
  // [sampled pages, one pdftoppm run]
  const table: [number[], boolean][] = [
    [[1], true],
    [[1, 2, 3, 4, 5], true],
    [[1, 3, 6, 8, 10], false],
  ];
  it.each(table)('%j -> %s', (pages, want) => {
    expect(isRange(pages)).toBe(want);
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
  ] as const)('%s', { timeout: 60_000 }, async (name, { given, want }) => {
    const path = await writeFixture(dir, 'twelve.pdf', await textPdf({ pages: 12 }));
    const workDir = await mkdtemp(join(dir, 'job-'));
    const renderer = popplerRenderer(pdftoppm as NonNullable<typeof pdftoppm>, 60_000);
    const target = { path, pages: given, name: name.startsWith('a range') ? 'r' : 's' };
    const rendered = await renderer.render(target, 20, { workDir, signal: new AbortController().signal });
    expect('value' in rendered && rendered.value.map((file) => basename(file))).toEqual(want);
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
