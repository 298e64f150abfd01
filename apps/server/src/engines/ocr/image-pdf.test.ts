// An uploaded image written as a PDF for OCR of documents, run here in-process on files written
// by other software (packages/fixtures/assets/images/SOURCES.md): a page per image page, of the image's
// size at its resolution, upright, the image kept (a JPEG's very bytes) or its pixels as the decoder
// reads them (poppler's pdfimages takes each back out).
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdsUploadedPixels, IMAGE_ASSETS, ocrSample, shownPageSizes, TWO_PAGE_TIFF } from '@pdn/fixtures';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageFormat } from './image-header.js';
import { placement, writeImagePdf } from './image-pdf.js';
import { PixelCapError } from './page-images.js';

const CAP = 40_000_000;
const poppler = (() => {
  try {
    execFileSync('pdfimages', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-image-pdf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function imagePdf(input: string, format: ImageFormat) {
  const out = await mkdtemp(join(dir, 'job-'));
  const pdf = join(out, 'image.pdf');
  const pages = await writeImagePdf(input, format, CAP, pdf);
  return { out, pdf, pages };
}

const LETTERLIKE = [191.04, 72.24];

describe('writeImagePdf', () => {
  it.each<[string, ImageFormat, number[][], 'bytes' | 'pixels']>([
    // 8-bit grey and RGB JPEGs are carried as they are, progressive included.
    ['text/eng-progressive.jpg', 'jpeg', [LETTERLIKE], 'bytes'],
    // Stored on its side with EXIF orientation 6: the JPEG kept, the page upright.
    ['text/eng-exif6.jpg', 'jpeg', [LETTERLIKE], 'bytes'],
    ['text/eng-cmyk.jpg', 'jpeg', [LETTERLIKE], 'pixels'],
    ['text/eng-alpha.png', 'png', [LETTERLIKE], 'pixels'],
    ['text/eng-rgb16.png', 'png', [LETTERLIKE], 'pixels'],
    // No resolution in the file: 300 dpi, as OCRmyPDF's --image-dpi.
    ['text/eng-lossless.webp', 'webp', [LETTERLIKE], 'pixels'],
    ['text/eng-g4.tif', 'tiff', [LETTERLIKE], 'pixels'],
    [`text/${TWO_PAGE_TIFF}`, 'tiff', [LETTERLIKE, [210.72, 74.16]], 'pixels'],
  ])('writes %s a page per image page, its image %s', async (name, format, sizes, kept) => {
    const input = join(IMAGE_ASSETS, name);
    const { out, pdf, pages } = await imagePdf(input, format);
    expect(pages).toBe(sizes.length);
    if (!poppler) return;
    expect(shownPageSizes(pdf)).toEqual(sizes);
    execFileSync('pdfimages', ['-all', pdf, join(out, 'image')]);
    const extracted = (await readdir(out)).filter((file) => file.startsWith('image-')).sort();
    expect(extracted).toHaveLength(pages);
    for (const [page, file] of extracted.entries()) {
      const taken = join(out, file);
      if (kept === 'bytes') expect((await readFile(taken)).equals(await readFile(input))).toBe(true);
      else expect(await holdsUploadedPixels(taken, input, page)).toBe(true);
    }
  });

  it('reads a BMP with our own decoder, and takes the resolution a PNG declares', async () => {
    const bmp = await imagePdf(join(IMAGE_ASSETS, 'text/eng-rle8.bmp'), 'bmp');
    expect(bmp.pages).toBe(1);
    const png = join(dir, 'eng-150.png');
    const sample = await ocrSample('eng', 'png');
    await writeFile(png, await sharp(sample.bytes).withMetadata({ density: 150 }).png().toBuffer());
    const declared = await imagePdf(png, 'png');
    if (!poppler) return;
    expect(shownPageSizes(bmp.pdf)).toEqual([LETTERLIKE]);
    expect(shownPageSizes(declared.pdf)).toEqual([[382.08, 144.48]]);
  });

  // Each of EXIF's eight orientations, the JPEG stored so that it shows the sample upright: the page drawn
  // by poppler is what sharp shows, far nearer to it than to its mirror image.
  it.runIf(poppler).each([1, 2, 3, 4, 5, 6, 7, 8])(
    'draws a JPEG of EXIF orientation %i upright',
    async (orientation) => {
      const sample = await ocrSample('eng', 'png');
      const turned = await sharp(sample.bytes)
        .rotate([0, 0, 180, 180, 90, 270, 270, 90][orientation - 1])
        .toBuffer();
      const stored = await sharp(turned).flop([2, 4, 5, 7].includes(orientation)).toBuffer();
      const jpeg = join(dir, `exif-${orientation}.jpg`);
      await writeFile(
        jpeg,
        await sharp(stored).withMetadata({ orientation, density: 300 }).jpeg({ quality: 95 }).toBuffer(),
      );
      const { out, pdf } = await imagePdf(jpeg, 'jpeg');
      const shown = await sharp(jpeg)
        .autoOrient()
        .extractChannel(0)
        .raw()
        .toBuffer({ resolveWithObject: true });
      const size = ['-scale-to-x', String(shown.info.width), '-scale-to-y', String(shown.info.height)];
      execFileSync('pdftoppm', [...size, '-png', '-singlefile', pdf, join(out, 'drawn')]);
      const drawn = await sharp(join(out, 'drawn.png'))
        .extractChannel(0)
        .raw()
        .toBuffer({ resolveWithObject: true });
      const flopped = await sharp(shown.data, { raw: { ...shown.info, channels: 1 } })
        .flop()
        .raw()
        .toBuffer();
      const distance = (to: Buffer) => {
        let sum = 0;
        for (const [index, value] of drawn.data.entries()) sum += Math.abs(value - (to[index] ?? 0));
        return sum / drawn.data.length;
      };
      // Measured: 2.8-4.3 levels from sharp's reading (poppler resamples), 34 from its mirror image.
      expect(distance(shown.data)).toBeLessThan(distance(flopped) / 4);
    },
  );

  it.each<[number, number[]]>([
    [1, [80, 0, 0, 30, 0, 0]],
    [3, [-80, 0, 0, -30, 80, 30]],
    [6, [0, -80, 30, 0, 0, 80]],
    [8, [0, 80, -30, 0, 30, 0]],
  ])('places the image of EXIF orientation %i with the matrix %j', (orientation, matrix) => {
    expect(placement(orientation, 80, 30, 1).map((value) => value + 0)).toEqual(matrix);
  });

  it('refuses an image over the pixel cap before decoding it', async () => {
    const out = await mkdtemp(join(dir, 'job-'));
    const tiff = join(IMAGE_ASSETS, `text/${TWO_PAGE_TIFF}`);
    await expect(writeImagePdf(tiff, 'tiff', 300_000, join(out, 'x.pdf'))).rejects.toBeInstanceOf(
      PixelCapError,
    );
  });
});
