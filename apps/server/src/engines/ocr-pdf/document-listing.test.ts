// The listing the chunked reader sizes and judges a document by, on documents other software wrote.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import { listDocument } from './document-listing.js';

const { qpdf } = await detectTools();
const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url);
if (qpdf === undefined) console.warn('qpdf missing: the document listing tests are skipped');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-listing-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const list = (name: string) =>
  listDocument(fileURLToPath(new URL(name, CORPUS)), {
    // biome-ignore lint/style/noNonNullAssertion: the suite is skipped without qpdf
    qpdf: qpdf!,
    cwd: dir,
    timeoutMs: 30_000,
    signal: new AbortController().signal,
  });

describe.skipIf(qpdf === undefined)('listDocument', () => {
  it('counts a scan page by its image: a damaged Canon scan, 2550 x 3300', async () => {
    expect(await list('canon-scan.pdf')).toEqual({ plain: true, pagePixels: [2550 * 3300] });
  });

  it('counts a page without images as a 300 dpi raster of its size: three sizes by OpenOffice', async () => {
    const listing = await list('openoffice-page-sizes.pdf');
    expect(listing?.plain).toBe(true);
    // Letter, then a smaller page, then Letter turned.
    expect(listing?.pagePixels.map(Math.round)).toEqual([8_415_000, 3_639_358, 8_415_000]);
  });

  it('counts a page with a small image as at least a 150 dpi raster: Google Docs with a logo', async () => {
    const [pixels] = (await list('google-docs.pdf'))?.pagePixels ?? [];
    // An A4 page (596 x 842 points) with a 128 x 128 image.
    expect(pixels).toBeCloseTo(((596 * 842) / 72 ** 2) * 150 ** 2);
  });

  it.each([
    ['an outline', 'nested-outline.pdf'],
    ['annotations', 'fpdf2-annotations.pdf'],
    ['a form', 'libreoffice-form.pdf'],
  ])('finds a document with %s not plain: a join of chunks would break it', async (_, name) => {
    expect((await list(name))?.plain).toBe(false);
  });

  it('reads reals qpdf passes on as PDF wrote them, not as JSON: -0. by Apache FOP', async () => {
    const listing = await list('apache-fop-negative-zero.pdf');
    expect(listing?.pagePixels.length).toBeGreaterThan(0);
  });

  it('answers nothing for what qpdf cannot read', async () => {
    expect(await list('header-and-eof-only.pdf')).toBeUndefined();
  });
});
