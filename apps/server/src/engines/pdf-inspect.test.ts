import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deepPageTreePdf,
  emptyFile,
  encryptedPdf,
  labelledPdf,
  lyingCountPdf,
  macBinaryPdf,
  manyPagesPdf,
  notAPdf,
  pageTreeDagPdf,
  pageTreeLoopPdf,
  postscriptAsPdf,
  postscriptPolyglotPdf,
  truncatedPdf,
  writeFixture,
  zeroPagePdf,
} from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { PDF_LIB_WORKER_URL } from './pdf/run-pdf-lib-task.js';
import { inspectPdf, inspectPdfs } from './pdf-inspect.js';
import { type DetectedTools, detectTools } from './tools.js';

// pdf-lib needs seconds to parse the 100,000-page file, more when test files run in parallel: this
// is a guard against a hang, not a speed assertion (speed is measured in bench/).
vi.setConfig({ testTimeout: 60_000 });

const detected = await detectTools();
if (detected.qpdf === undefined)
  console.warn('qpdf is not installed: inspectPdf tests with qpdf are skipped');
if (!existsSync(PDF_LIB_WORKER_URL)) {
  throw new Error('The pdf-lib worker runs from dist/: build @pdn/server before running these tests');
}

// [name, tools]: with qpdf, inspection asks qpdf; without it, pdf-lib answers in a worker thread.
const branches: [string, DetectedTools, boolean][] = [
  ['with qpdf', detected.qpdf === undefined ? {} : { qpdf: detected.qpdf }, detected.qpdf === undefined],
  ['with pdf-lib (no qpdf)', {}, false],
];

const LABEL = 'file 2 (upload.pdf)';
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-inspect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(branches)('inspectPdf %s', (branch, tools, skip) => {
  const inspect = async (name: string, bytes: Uint8Array | Promise<Uint8Array>, maxPages = 5000) => {
    const path = await writeFixture(dir, `${branch}-${name}.pdf`, await bytes);
    return inspectPdf({ path, label: LABEL }, { maxPages, tools, timeoutMs: 60_000 });
  };

  it.skipIf(skip)('counts the pages of a good PDF, which tools read as uploaded', async () => {
    const inspection = await inspect('good', labelledPdf('A', 3));
    expect(inspection).toEqual({ pageCount: 3, path: join(dir, `${branch}-good.pdf`) });
  });

  it.skipIf(skip)('hands tools a copy from the header on when binary bytes come before it', async () => {
    const inspection = await inspect('macbinary', macBinaryPdf());
    expect(inspection.pageCount).toBe(2);
    expect(inspection.path).not.toBe(join(dir, `${branch}-macbinary.pdf`));
    const copy = await readFile(inspection.path);
    expect(copy.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(copy).toEqual((await macBinaryPdf()).subarray(128));
  });

  it.skipIf(skip)('reads a page tree nested 10,000 deep', async () => {
    await expect(inspect('deep', deepPageTreePdf(10_000))).resolves.toMatchObject({ pageCount: 1 });
  });

  // [name, bytes, pages]: the pages in the tree count, not the root's /Count.
  const lies: [string, () => Uint8Array, number][] = [
    ['/Count 1 over 3 pages', () => lyingCountPdf(3, 1), 3],
    ['/Count 9999999999 over 1 page', () => lyingCountPdf(1, 9_999_999_999), 1],
  ];
  it.skipIf(skip).each(lies)('counts the pages walked under %s', async (name, bytes, pages) => {
    await expect(inspect(name.replaceAll(/\W/g, '-'), bytes())).resolves.toMatchObject({ pageCount: pages });
  });

  // [name, bytes, maxPages, message fragment]
  const refusals: [string, () => Uint8Array | Promise<Uint8Array>, number, RegExp][] = [
    ['an empty file', emptyFile, 5000, /is empty \(0 bytes\)/],
    ['a PNG named .pdf', notAPdf, 5000, /is not a PDF/],
    ['PostScript named .pdf', postscriptAsPdf, 5000, /is not a PDF/],
    [
      'PostScript before a PDF (a polyglot)',
      () => postscriptPolyglotPdf(),
      5000,
      /has PostScript \(%!\) before its %PDF- header/,
    ],
    [
      'a PostScript loop before a PDF',
      () => postscriptPolyglotPdf({ loop: true }),
      5000,
      /has PostScript \(%!\) before its %PDF- header/,
    ],
    [
      'text before the header',
      async () => Buffer.concat([Buffer.from('x'.repeat(500)), await labelledPdf('A', 1)]),
      5000,
      /has text before its %PDF- header/,
    ],
    [
      'a header too far in',
      async () => Buffer.concat([Buffer.alloc(1100, 32), await labelledPdf('A', 1)]),
      5000,
      /is not a PDF/,
    ],
    ['a truncated PDF', truncatedPdf, 5000, /is damaged or truncated/],
    ['a password-encrypted PDF', encryptedPdf, 5000, /is encrypted/],
    ['a PDF with zero pages', zeroPagePdf, 5000, /has no pages/],
    [
      'one page over the cap',
      () => labelledPdf('A', 6),
      5,
      /has 6 pages; this server accepts at most 5 pages/,
    ],
    ['100,000 pages, by the cap before anything else', () => manyPagesPdf(100_000), 5000, /has 100000 pages/],
    ['20,000 pages claiming 1', () => lyingCountPdf(20_000, 1), 5000, /has 20000 pages/],
    ['a page tree with a loop', pageTreeLoopPdf, 5000, /its page tree has a loop/],
    [
      'a page tree listing a node twice (2^40 pages)',
      () => pageTreeDagPdf(40),
      5000,
      /its page tree has a loop/,
    ],
  ];
  it.skipIf(skip).each(refusals)('refuses %s, naming the file', async (name, bytes, maxPages, message) => {
    const result = inspect(name.replaceAll(/\W/g, '-'), bytes(), maxPages);
    await expect(result).rejects.toBeInstanceOf(InvalidInputError);
    await expect(result).rejects.toThrow(message);
    await expect(result).rejects.toThrow(LABEL);
  });
});

describe('inspectPdf with qpdf', () => {
  it.skipIf(detected.qpdf === undefined)('says a password is needed, which pdf-lib cannot tell', async () => {
    const path = await writeFixture(dir, 'encrypted.pdf', await encryptedPdf());
    const result = inspectPdf({ path, label: LABEL }, { maxPages: 5000, tools: detected, timeoutMs: 60_000 });
    await expect(result).rejects.toThrow(`${LABEL} is encrypted with a password.`);
  });
});

describe('inspectPdfs with qpdf', () => {
  const inspectAll = async (name: string, files: Promise<Uint8Array>[]) => {
    const inputs = await Promise.all(
      files.map(async (bytes, index) => ({
        path: await writeFixture(dir, `merge-${name}-${index + 1}.pdf`, await bytes),
        label: `file ${index + 1}`,
      })),
    );
    return { inputs, result: inspectPdfs(inputs, { maxPages: 5000, tools: detected, timeoutMs: 60_000 }) };
  };

  it.skipIf(detected.qpdf === undefined)('counts the pages of every file, read as uploaded', async () => {
    const { inputs, result } = await inspectAll('good', [
      labelledPdf('A', 3),
      labelledPdf('B', 2),
      labelledPdf('C', 4),
    ]);
    await expect(result).resolves.toEqual({ files: inputs, pageCount: 9 });
  });

  it.skipIf(detected.qpdf === undefined)(
    'names the first bad file in upload order, the file after it being read already',
    async () => {
      const { result } = await inspectAll('zero', [labelledPdf('A', 3), zeroPagePdf(), zeroPagePdf()]);
      await expect(result).rejects.toThrow('file 2 has no pages.');
    },
  );

  // Two files on two cores: each counted by a qpdf run of its own, which says at once that one is over
  // the cap; a bad file before it is still the one named.
  it.skipIf(detected.qpdf === undefined)(
    'refuses a file over the cap that qpdf counted alone, unless a file before it is bad',
    async () => {
      const over = await inspectAll('over', [labelledPdf('A', 3), Promise.resolve(manyPagesPdf(5001))]);
      await expect(over.result).rejects.toThrow('file 2 has 5001 pages');
      const after = await inspectAll('after', [encryptedPdf(), Promise.resolve(manyPagesPdf(5001))]);
      await expect(after.result).rejects.toThrow('file 1 is encrypted');
    },
  );
});
