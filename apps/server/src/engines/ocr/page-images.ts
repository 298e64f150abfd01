// Turns an uploaded image into the pages tesseract reads: one 8-bit greyscale PGM per page, upright
// and flattened on white. Runs only inside an OCR process (ocr-process-main.ts), under its memory
// limit: this is where hostile bytes meet decoders.
//
// Why convert at all ("inputs the spec promises"): Leptonica, inside both tesseract builds,
// refuses RLE-compressed BMPs and ignores EXIF orientation, and tesseract.js reads only a TIFF's first
// page. So every image is decoded here, by sharp (libvips with libjpeg-turbo, libpng, libtiff, libwebp:
// progressive and CMYK JPEG, 16-bit PNG and TIFF, WebP with alpha) or by our own BMP reader, and
// tesseract only ever sees files we wrote, of a size we know.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { decodeBmp, embeddedImage } from './bmp-image.js';
import { type Dimensions, type ImageFormat, pixelsOf, withinSideLimit } from './image-header.js';

// One decode at a time per process, and no cache: each OCR process decodes one upload, then recognises.
sharp.concurrency(1);
sharp.cache(false);

export interface PageImage extends Dimensions {
  path: string;
}

/**
 * The decoder's own reading of the image is over the pixel cap or has a side tesseract refuses (the
 * header check could not see it).
 */
export class PixelCapError extends Error {
  override name = 'PixelCapError';
}

/** What sharp reads: a file, an embedded stream, or the RGBA pixels of our BMP reader. */
export type Source = { input: string | Buffer; raw?: { width: number; height: number; channels: 4 } };

async function sourceOf(path: string, format: ImageFormat, maxPixels: number): Promise<Source> {
  if (format !== 'bmp') return { input: path };
  const bytes = await readFile(path);
  const embedded = embeddedImage(bytes);
  if (embedded !== undefined) return { input: Buffer.from(embedded) };
  const pixels = decodeBmp(bytes, maxPixels);
  return {
    input: Buffer.from(pixels.rgba.buffer, pixels.rgba.byteOffset, pixels.rgba.byteLength),
    raw: { width: pixels.width, height: pixels.height, channels: 4 },
  };
}

/** Page sizes as the decoder reads them: every page of a TIFF, the first frame of anything else. */
async function pageSizes(source: Source, format: ImageFormat): Promise<Dimensions[]> {
  if (source.raw !== undefined) return [{ width: source.raw.width, height: source.raw.height }];
  const first = await sharp(source.input, { limitInputPixels: false }).metadata();
  const count = format === 'tiff' ? (first.pages ?? 1) : 1;
  const sizes: Dimensions[] = [];
  for (let page = 0; page < count; page += 1) {
    const metadata =
      page === 0 ? first : await sharp(source.input, { page, limitInputPixels: false }).metadata();
    sizes.push({ width: metadata.width, height: metadata.height });
  }
  return sizes;
}

/**
 * The upload as its decoder reads it, and the size of each page. Refuses with PixelCapError when the
 * pages hold more than `maxPixels` in all or one has a side tesseract refuses.
 */
export async function decodablePages(
  path: string,
  format: ImageFormat,
  maxPixels: number,
): Promise<{ source: Source; sizes: Dimensions[] }> {
  const source = await sourceOf(path, format, maxPixels);
  const sizes = await pageSizes(source, format);
  const pixels = pixelsOf(sizes);
  if (pixels > maxPixels) {
    throw new PixelCapError(`its decoder reads ${sizes.length} page(s) of ${pixels} pixels in all`);
  }
  const tooLong = sizes.find((size) => !withinSideLimit(size));
  if (tooLong !== undefined) {
    throw new PixelCapError(`its decoder reads a page of ${tooLong.width}x${tooLong.height} pixels`);
  }
  return { source, sizes };
}

/** Page `page` (0-based) of `source`, for sharp to decode, never more than `maxPixels`. */
export function pageOf(source: Source, page: number, maxPixels: number): Sharp {
  return sharp(source.input, {
    ...(source.raw === undefined ? { page } : { raw: source.raw }),
    limitInputPixels: maxPixels,
  });
}

/**
 * Decodes every page of `path` into `outDir/page-N.pgm` (decodablePages' refusals); any decoding
 * failure (damaged data) throws the decoder's error.
 */
export async function writePageImages(
  path: string,
  format: ImageFormat,
  maxPixels: number,
  outDir: string,
): Promise<PageImage[]> {
  const { source, sizes } = await decodablePages(path, format, maxPixels);
  const pages: PageImage[] = [];
  for (const [page] of sizes.entries()) {
    const { data, info } = await pageOf(source, page, maxPixels)
      // EXIF orientation first, so the text is upright; transparency becomes the white of paper.
      .autoOrient()
      .flatten({ background: '#ffffff' })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 1) throw new Error(`greyscale page ${page} has ${info.channels} channels`);
    const out = join(outDir, `page-${page + 1}.pgm`);
    // Netpbm PGM, binary ("P5"): a header and the bytes as they are, which Leptonica reads natively.
    await writeFile(
      out,
      Buffer.concat([Buffer.from(`P5\n${info.width} ${info.height}\n255\n`, 'latin1'), data]),
    );
    pages.push({ path: out, width: info.width, height: info.height });
  }
  return pages;
}
