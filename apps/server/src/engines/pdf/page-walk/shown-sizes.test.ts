// The in-process page sizes must never disagree with the renderers' own: they either are the sizes
// poppler's pdfinfo reports (the real-world corpus is the judge), or the walk leaves them to the renderer.
import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsePageSizes } from '../../pdf-images/page-sizes.js';
import { detectTools } from '../../tools.js';
import { walkPageTree } from './page-tree-walk.js';
import { Doubt } from './pdf-syntax.js';
import { type ShownSize, ShownSizes } from './shown-sizes.js';

const { pdfinfo } = await detectTools();
const CORPUS_DIR = fileURLToPath(new URL('../../../../../../packages/fixtures/corpus/', import.meta.url));

/** A plain file (a cross-reference table) of the objects given, object 1 the catalog. */
function plainPdf(objects: string[]): Buffer {
  let body = '%PDF-1.7\n';
  const offsets: number[] = [];
  for (const [index, text] of objects.entries()) {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${text}\nendobj\n`;
  }
  const entries = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const size = objects.length + 1;
  return Buffer.from(
    `${body}xref\n0 ${size}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${size} /Root 1 0 R >>\n` +
      `startxref\n${body.length}\n%%EOF\n`,
    'latin1',
  );
}

/** A catalog, a root /Pages with `rootAttributes` over the pages given (objects 3 on), and `extra` after them. */
function pagesPdf(rootAttributes: string, pages: string[], extra: string[] = []): Buffer {
  const kids = pages.map((_, index) => `${index + 3} 0 R`).join(' ');
  return plainPdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} ${rootAttributes} >>`,
    ...pages.map((attributes) => `<< /Type /Page /Parent 2 0 R ${attributes} >>`),
    ...extra,
  ]);
}

/** The sizes a walk of `pdf` shows, undefined where unsure; a walk that has its own doubt fails the test. */
function sizes(pdf: Buffer): ShownSize[] | undefined {
  const shown = new ShownSizes();
  walkPageTree(pdf, 100, shown.visit);
  return shown.sizes;
}

/** As `sizes`, for files the walk itself may leave to qpdf. */
function sizesOrDoubt(pdf: Buffer): ShownSize[] | undefined {
  try {
    return sizes(pdf);
  } catch (error) {
    if (error instanceof Doubt) return undefined;
    throw error;
  }
}

describe('ShownSizes', () => {
  const letter = '/MediaBox [0 0 612 792]';
  const table: [string, { given: Buffer; want: [number, number][] | undefined }][] = [
    ['its own media box', { given: pagesPdf('', [letter]), want: [[612, 792]] }],
    [
      'boxes and /Rotate inherited from the root, a page’s own over them',
      {
        given: pagesPdf(`${letter} /Rotate 90`, ['', '/Rotate 0', '/MediaBox [0 0 200 100] /Rotate -90']),
        want: [
          [792, 612],
          [612, 792],
          [100, 200],
        ],
      },
    ],
    [
      'a crop box inside the media box, corners in any order',
      { given: pagesPdf(letter, ['/CropBox [600 780 12 12]']), want: [[588, 768]] },
    ],
    [
      'a media box by reference, its numbers too',
      { given: pagesPdf('', ['/MediaBox 4 0 R'], ['[0 0 5 0 R 300]', '400']), want: [[400, 300]] },
    ],
    ['a /UserUnit of 1', { given: pagesPdf(letter, ['/UserUnit 1']), want: [[612, 792]] }],
    ['no media box: readers differ', { given: pagesPdf('', ['']), want: undefined }],
    [
      'a crop box past the media box',
      { given: pagesPdf(letter, ['/CropBox [0 0 700 700]']), want: undefined },
    ],
    ['a /UserUnit Ghostscript applies', { given: pagesPdf(letter, ['/UserUnit 10']), want: undefined }],
    ['a /Rotate of 45', { given: pagesPdf(letter, ['/Rotate 45']), want: undefined }],
    ['a box of three numbers', { given: pagesPdf('', ['/MediaBox [0 0 612]']), want: undefined }],
    ['an empty page', { given: pagesPdf('', ['/MediaBox [0 0 0 792]']), want: undefined }],
  ];
  it.each(table)('%s', (_, { given, want }) => {
    expect(sizes(given)?.map(({ width, height }) => [width, height])).toEqual(want);
  });

  it('leaves the pages to the count when unsure of a size', () => {
    const pdf = pagesPdf('/MediaBox [0 0 612 792]', ['', '/UserUnit 2', '']);
    const shown = new ShownSizes();
    expect(walkPageTree(pdf, 100, shown.visit).pageCount).toBe(3);
    expect(shown.sizes).toBeUndefined();
  });

  it('shows the pages of a nested tree in page order', () => {
    const pdf = plainPdf([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 3 /MediaBox [0 0 100 100] >>',
      '<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 5 0 R] /Count 2 /MediaBox [0 0 200 200] >>',
      '<< /Type /Page /Parent 3 0 R >>',
      '<< /Type /Page /Parent 3 0 R /MediaBox [0 0 300 300] >>',
      '<< /Type /Page /Parent 2 0 R >>',
    ]);
    expect(sizes(pdf)?.map(({ width }) => width)).toEqual([200, 300, 100]);
  });
});

describe.skipIf(pdfinfo === undefined)('ShownSizes against pdfinfo', () => {
  // A pdfinfo run per corpus file: seconds on a loaded machine, past vitest's default 5 s.
  it('agrees with pdfinfo on every file of the real-world corpus it answers for, and answers for most', {
    timeout: 60_000,
  }, async () => {
    const names = (await readdir(CORPUS_DIR)).filter((name) => name.toLowerCase().endsWith('.pdf'));
    let answered = 0;
    for (const name of names) {
      const ours = sizesOrDoubt(await readFile(join(CORPUS_DIR, name)));
      if (ours === undefined) continue;
      answered++;
      // The pages the walk found, as pdfinfo lists them (it prints six significant digits). Poppler
      // cannot read some page trees at all (a root /Count past 2^31 is no page to it): nothing to compare.
      const args = ['-f', '1', '-l', String(ours.length), join(CORPUS_DIR, name)];
      const listed = spawnSync(pdfinfo?.path ?? 'pdfinfo', args, { encoding: 'utf8' });
      if (listed.status !== 0) continue;
      const listing = listed.stdout;
      const round = ({ width, height }: ShownSize) => [
        Math.round(width * 10) / 10,
        Math.round(height * 10) / 10,
      ];
      expect({ name, sizes: [...parsePageSizes(listing).values()].map(round) }).toEqual({
        name,
        sizes: ours.map(round),
      });
    }
    expect(answered).toBeGreaterThan(names.length * 0.7);
  });
});
