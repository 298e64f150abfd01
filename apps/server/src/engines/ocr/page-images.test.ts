// The decoding step of an OCR process, run here in-process on files written by other software
// (packages/fixtures/assets/images/SOURCES.md): what tesseract is given for each.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGE_ASSETS, TWO_PAGE_TIFF } from '@pdn/fixtures';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageFormat } from './image-header.js';
import { PixelCapError, writePageImages } from './page-images.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-page-images-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CAP = 40_000_000;

describe('writePageImages', () => {
  it.each<[string, ImageFormat, { width: number; height: number }[]]>([
    ['text/eng-rle8.bmp', 'bmp', [{ width: 796, height: 301 }]],
    // Stored on its side with EXIF orientation 6: the page comes out upright.
    ['text/eng-exif6.jpg', 'jpeg', [{ width: 796, height: 301 }]],
    ['text/eng-cmyk.jpg', 'jpeg', [{ width: 796, height: 301 }]],
    ['text/eng-rgb16.png', 'png', [{ width: 796, height: 301 }]],
    ['text/eng-alpha.webp', 'webp', [{ width: 796, height: 301 }]],
    [
      `text/${TWO_PAGE_TIFF}`,
      'tiff',
      [
        { width: 796, height: 301 },
        { width: 878, height: 309 },
      ],
    ],
    // A BMP holding a JPEG stream (BI_JPEG), handed to libjpeg.
    ['bmpsuite/q/rgb24jpeg.bmp', 'bmp', [{ width: 127, height: 64 }]],
    ['bmpsuite/g/pal8topdown.bmp', 'bmp', [{ width: 127, height: 64 }]],
  ])('decodes %s into upright 8-bit greyscale pages', async (name, format, sizes) => {
    const out = await mkdtemp(join(dir, 'job-'));
    const pages = await writePageImages(join(IMAGE_ASSETS, name), format, CAP, out);
    expect(pages.map(({ width, height }) => ({ width, height }))).toEqual(sizes);
    for (const page of pages) {
      const pgm = await readFile(page.path);
      const header = `P5\n${page.width} ${page.height}\n255\n`;
      expect(pgm.subarray(0, header.length).toString('latin1')).toBe(header);
      expect(pgm.length).toBe(header.length + page.width * page.height);
    }
  });

  it('reads transparency as white paper', async () => {
    const out = await mkdtemp(join(dir, 'job-'));
    const [page] = await writePageImages(join(IMAGE_ASSETS, 'text/eng-alpha.png'), 'png', CAP, out);
    const pgm = await readFile(page?.path ?? '');
    // The top-left corner is transparent in the file: white once flattened.
    expect(pgm[`P5\n796 301\n255\n`.length]).toBe(255);
  });

  it('refuses pages over the cap by the decoder’s own reading, all pages together', async () => {
    const out = await mkdtemp(join(dir, 'job-'));
    const tiff = join(IMAGE_ASSETS, 'text', TWO_PAGE_TIFF);
    // Each page alone is under 300,000 pixels; both together are not.
    await expect(writePageImages(tiff, 'tiff', 300_000, out)).rejects.toBeInstanceOf(PixelCapError);
  });

  // Found by the fuzzer: tesseract refuses a side over 32,767 pixels, whatever the header said.
  it('refuses a page longer than tesseract reads by the decoder’s own reading', async () => {
    const out = await mkdtemp(join(dir, 'job-'));
    const strip = join(dir, 'strip.png');
    await sharp({ create: { width: 40_000, height: 2, channels: 3, background: '#ffffff' } })
      .png()
      .toFile(strip);
    await expect(writePageImages(strip, 'png', CAP, out)).rejects.toThrow(
      /its decoder reads a page of 40000x2 pixels/,
    );
  });

  it('throws the decoder’s error for damaged data', async () => {
    const out = await mkdtemp(join(dir, 'job-'));
    await expect(
      writePageImages(join(IMAGE_ASSETS, 'bmpsuite/b/shortfile.bmp'), 'bmp', CAP, out),
    ).rejects.toThrow(/cut off/);
  });
});
