// Images to PDF through the OCR processes, with real images written by other software (the fixtures'
// ImageMagick and libvips re-encodings of the English sample, BMP Suite, a JPEG 2000 codestream taken
// out of a corpus PDF): every image's pixels or bytes carried into the PDF, pages sized and turned as
// asked, and hostile or over-budget images refused as the OCR path refuses them.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  duplicateDimensionTiff,
  garbageImage,
  hiddenFrameJpeg,
  holdsUploadedPixels,
  hugeDimensionsPng,
  IMAGE_ASSETS,
  shownPageSizes,
  TWO_PAGE_TIFF,
  writeFixture,
} from '@pdn/fixtures';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../errors.js';
import { CpuSlots } from '../cpu-slots.js';
import { createOcrEngine } from '../ocr/index.js';
import { detectTools } from '../tools.js';
import type { OcrEngine } from '../types.js';
import { createImagesPdfEngine } from './index.js';
import type { ImageBudget, ImagesPdfEngine, PageLayout } from './types.js';

const tools = await detectTools();
const TEXT = join(IMAGE_ASSETS, 'text');
const BMP = join(IMAGE_ASSETS, 'bmpsuite');
const CORPUS = new URL('../../../../../packages/fixtures/corpus/', import.meta.url);
const BY_IMAGE: PageLayout = { pageSize: 'image', orientation: 'auto', fit: 'contain', marginMm: 0 };
const BUDGET: ImageBudget = { maxImages: 20, maxPixels: 16_000_000, holder: 'the Free plan' };
const quiet = { info: () => {}, warn: () => {} };

let ocr: OcrEngine;
let engine: ImagesPdfEngine;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-images-pdf-'));
  const cpuSlots = new CpuSlots(1);
  ocr = await createOcrEngine({
    choice: 'tesseract.js',
    tools: tools.prlimit === undefined ? {} : { prlimit: tools.prlimit },
    native: undefined,
    cpuSlots,
    maxImagePixels: 40_000_000,
    memoryBytes: 1024 * 2 ** 20,
    poolSize: 1,
    recycleAfter: 100,
    timeoutMs: 60_000,
    log: quiet,
  });
  engine = createImagesPdfEngine({
    images: ocr.pages,
    cpuSlots,
    maxImagePixels: 40_000_000,
    memoryBytes: 2 ** 30,
  });
});

afterAll(async () => {
  await ocr?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

let run = 0;
async function convert(paths: string[], layout = BY_IMAGE, budget = BUDGET) {
  run += 1;
  const workDir = join(dir, `run-${run}`);
  await rm(workDir, { recursive: true, force: true });
  await import('node:fs/promises').then((fs) => fs.mkdir(workDir));
  const inputs = paths.map((path, index) => ({ path, label: `image ${index + 1}` }));
  return engine.toPdf(inputs, layout, budget, { workDir, signal: new AbortController().signal });
}

/** The images poppler takes out of `pdf`, in page order, each as the file `pdfimages -all` writes. */
async function takenImages(pdf: string): Promise<string[]> {
  const out = await mkdtemp(join(dir, 'taken-'));
  execFileSync('pdfimages', ['-all', pdf, join(out, 'i')]);
  return (await readdir(out)).sort().map((name) => join(out, name));
}

function qpdfCheck(pdf: string): void {
  execFileSync('qpdf', ['--check', pdf], { stdio: 'pipe' });
}

/** The JPEG 2000 image (551x337) of the corpus's ImageMagick JPX file: real JPEG 2000 bytes, public. */
async function corpusJp2(): Promise<string> {
  const doc = await PDFDocument.load(await readFile(new URL('imagemagick-jpeg2000.pdf', CORPUS)));
  // The largest JPXDecode stream: the file also holds a 1x1 one.
  const streams = doc.context
    .enumerateIndirectObjects()
    .flatMap(([, object]) =>
      object instanceof PDFRawStream && String(object.dict.get(PDFName.of('Filter'))).includes('JPXDecode')
        ? [object.contents]
        : [],
    )
    .sort((a, b) => b.length - a.length);
  const [largest] = streams;
  if (largest === undefined) throw new Error('no JPXDecode image in the corpus file');
  return writeFixture(dir, 'corpus.jp2', largest);
}

describe.skipIf(tools.prlimit === undefined || tools.qpdf === undefined || tools.pdfimages === undefined)(
  'images to PDF',
  // The first case starts an OCR process: beside other suites on two busy cores, more than 5 s.
  { timeout: 30_000 },
  () => {
    it('keeps JPEGs and JPEG 2000 byte for byte, in upload order, one page each', async () => {
      const jpegs = ['eng-progressive.jpg', 'eng-cmyk.jpg', 'eng-exif6.jpg'].map((name) => join(TEXT, name));
      const jp2 = await corpusJp2();
      const output = await convert([...jpegs, jp2]);
      qpdfCheck(output.path);
      expect(output.pageCount).toBe(4);
      const taken = await takenImages(output.path);
      const bytes = await Promise.all([...jpegs, jp2].map((path) => readFile(path)));
      expect(await Promise.all(taken.map((path) => readFile(path)))).toEqual(bytes);
      // The JPEG 2000 page is its image at the resolution its header gives (300 dpi): 551x337 pixels.
      expect(shownPageSizes(output.path)[3]?.map(Math.round)).toEqual([132, 81]);
    });

    it('keeps every pixel of PNG, TIFF (every page), WebP and BMP', async () => {
      const cases = [
        ['eng-progressive.jpg', 0],
        ['eng-g4.tif', 0],
        [TWO_PAGE_TIFF, 0],
        [TWO_PAGE_TIFF, 1],
        ['eng-lossless.webp', 0],
        ['eng-lossy.webp', 0],
      ] as const;
      const uploads = [...new Set(cases.map(([name]) => join(TEXT, name)))];
      const output = await convert(uploads);
      qpdfCheck(output.path);
      expect(output.pageCount).toBe(6);
      const taken = await takenImages(output.path);
      for (const [index, [name, page]] of cases.entries()) {
        const image = taken[index];
        if (image === undefined) throw new Error(`no image ${index}`);
        expect(await holdsUploadedPixels(image, join(TEXT, name), page), name).toBe(true);
      }
    });

    // Not the bitfield files: ImageMagick's references of them are wrong (assets/images/SOURCES.md).
    it.each(['pal1.bmp', 'pal4rle.bmp', 'pal8.bmp', 'pal8rle.bmp', 'pal8topdown.bmp', 'rgb24.bmp'])(
      'reads BMP Suite %s as ImageMagick does',
      async (name) => {
        const output = await convert([join(BMP, 'g', name)]);
        qpdfCheck(output.path);
        const [image] = await takenImages(output.path);
        if (image === undefined) throw new Error('no image');
        const reference = join(BMP, 'reference', name.replace(/\.bmp$/, '.png'));
        expect(await holdsUploadedPixels(image, reference)).toBe(true);
      },
    );

    it('keeps 16-bit samples as 16', async () => {
      const output = await convert([join(TEXT, 'eng-rgb16.png'), join(TEXT, 'eng-rgb16.tif')]);
      qpdfCheck(output.path);
      const list = execFileSync('pdfimages', ['-list', output.path], { encoding: 'utf8' });
      // pdfimages -list: page num type width height color comp bpc ...
      const bits = [...list.matchAll(/^\s*\d+\s+\d+\s+image\s+\d+\s+\d+\s+\w+\s+\d+\s+(\d+)/gm)].map(
        (m) => m[1],
      );
      expect(bits).toEqual(['16', '16']);
    });

    it('keeps transparency as a soft mask', async () => {
      const output = await convert([join(TEXT, 'eng-alpha.png'), join(TEXT, 'eng-alpha.webp')]);
      qpdfCheck(output.path);
      const list = execFileSync('pdfimages', ['-list', output.path], { encoding: 'utf8' });
      expect(list.match(/ smask /g)).toHaveLength(2);
    });

    it('sizes pages from the resolution, turned as EXIF says, or on paper with margins', async () => {
      // 796x301 pixels at 300 dpi; the EXIF-6 JPEG stores it on its side.
      const natural = await convert([join(TEXT, 'eng-rgb16.png'), join(TEXT, 'eng-exif6.jpg')]);
      const rounded = (path: string) => shownPageSizes(path).map((size) => size.map(Math.round));
      expect(rounded(natural.path)).toEqual([
        [191, 72],
        [191, 72],
      ]);
      const a4 = await convert([join(TEXT, 'eng-exif6.jpg')], { ...BY_IMAGE, pageSize: 'a4', marginMm: 10 });
      // Wider than high: A4 turned to landscape.
      expect(rounded(a4.path)).toEqual([[842, 595]]);
      const portrait = await convert([join(TEXT, 'eng-exif6.jpg')], {
        pageSize: 'letter',
        orientation: 'portrait',
        fit: 'cover',
        marginMm: 0,
      });
      expect(rounded(portrait.path)).toEqual([[612, 792]]);
    });

    it.each([
      ['a 400-megapixel PNG', () => hugeDimensionsPng(), /400,000,000/],
      ['a TIFF listing its size twice', () => duplicateDimensionTiff(), /ambiguous/],
      ['a JPEG hiding a frame behind RST0', () => hiddenFrameJpeg(), /ambiguous|pixels/],
      ['a PNG whose data is random', () => garbageImage(7), /could not be read as a PNG image/],
      ['a PDF', () => new TextEncoder().encode('%PDF-1.7\n'), /PNG, JPEG, TIFF, WebP, BMP or JPEG 2000/],
    ])('refuses %s as the OCR path does', async (_, bytes, message) => {
      const path = await writeFixture(dir, 'hostile', bytes());
      const error = await convert([path]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(message);
    });

    it('refuses damaged data a JPEG keeps past its header, naming the first damaged image', async () => {
      const whole = await readFile(join(TEXT, 'eng-progressive.jpg'));
      const cut = await writeFixture(dir, 'cut.jpg', whole.subarray(0, whole.length / 2));
      const garbage = await writeFixture(dir, 'garbage.png', garbageImage(7));
      const error = await convert([join(TEXT, 'eng-cmyk.jpg'), cut, garbage]).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toMatch(/^image 2 could not be read as a JPEG image/);
    });

    it('refuses images over the plan budgets, naming them', async () => {
      const tiff = join(TEXT, TWO_PAGE_TIFF);
      await expect(convert([tiff], BY_IMAGE, { ...BUDGET, maxImages: 1 })).rejects.toThrow(
        'The image holds 2 pages in all; the Free plan allows at most 1 images per request',
      );
      await expect(
        convert([join(TEXT, 'eng-rgb16.png')], BY_IMAGE, { ...BUDGET, maxPixels: 1000 }),
      ).rejects.toThrow('the Free plan allows images of at most 1,000 pixels');
    });
  },
);
