// An uploaded image as a PDF, for OCR of documents (the native and tesseract.js engines): a page
// per image page (every page of a TIFF), at the image's resolution (300 dpi when its file gives none, as
// OCRmyPDF's `--image-dpi`), upright as its EXIF orientation says. The image is the one uploaded: a JPEG
// keeps its very bytes (only the page's drawing matrix turns it), anything else is stored losslessly as
// the decoder reads it, in PNG-predicted Flate (the zlib data of a PNG, as img2pdf stores PNGs for
// OCRmyPDF). The document engines then read it as they read any scanned PDF: a page at a time, with every
// option, the image untouched under the text layer. Runs only inside an OCR process, under its memory
// limit (page-images.ts: the same decoder, the same pixel cap).
import { readFile, writeFile } from 'node:fs/promises';
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  PDFName,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';
import type { Metadata } from 'sharp';
import type { ImageFormat } from './image-header.js';
import { decodablePages, pageOf, type Source } from './page-images.js';

/** OCRmyPDF's `--image-dpi`, for an image whose file gives no resolution. */
export const DEFAULT_IMAGE_DPI = 300;
/** Below this a declared density is an aspect ratio (JFIF units 0, a PNG pHYs in no unit), not a resolution. */
const MIN_DECLARED_DPI = 10;

/** The resolution a page is laid out at: the image's declared density, else DEFAULT_IMAGE_DPI. */
export function resolutionOf(density: number | undefined): number {
  return density !== undefined && density >= MIN_DECLARED_DPI ? density : DEFAULT_IMAGE_DPI;
}

type Matrix = [number, number, number, number, number, number];

interface ImageStream {
  width: number;
  height: number;
  /** The image dictionary's entries beyond its type and size. */
  dict: Record<string, string | number | Record<string, number>>;
  bytes: Uint8Array;
}

/** Where EXIF `orientation` shows the stored point (x, y) (y down) of a `width` x `height` image. */
function shown(orientation: number, width: number, height: number, x: number, y: number): [number, number] {
  switch (orientation) {
    case 2:
      return [width - x, y];
    case 3:
      return [width - x, height - y];
    case 4:
      return [x, height - y];
    case 5:
      return [y, x];
    case 6:
      return [height - y, x];
    case 7:
      return [height - y, width - x];
    case 8:
      return [y, width - x];
    default:
      return [x, y];
  }
}

/** Orientations 5 to 8 turn the image a quarter: its width is shown as the page's height. */
export function isSideways(orientation: number): boolean {
  return orientation >= 5 && orientation <= 8;
}

/**
 * The `cm` matrix that draws the image (its unit square, the first row at the top) upright on its page,
 * `scale` points per pixel: where the square's corners land, as the orientation shows the image.
 */
export function placement(orientation: number, width: number, height: number, scale: number): Matrix {
  const shownHeight = isSideways(orientation) ? width : height;
  const at = (u: number, v: number) => {
    const [x, y] = shown(orientation, width, height, u * width, (1 - v) * height);
    return [x * scale, (shownHeight - y) * scale] as const;
  };
  const [e, f] = at(0, 0);
  const [ax, ay] = at(1, 0);
  const [cx, cy] = at(0, 1);
  return [ax - e, ay - f, cx - e, cy - f, e, f];
}

/** A JPEG a PDF carries as it is: 8-bit grey or RGB (CMYK's inverted Adobe variants are decoded instead). */
function keepsJpeg(meta: Metadata): boolean {
  return (
    meta.format === 'jpeg' &&
    meta.depth === 'uchar' &&
    ((meta.space === 'b-w' && meta.channels === 1) || (meta.space === 'srgb' && meta.channels === 3))
  );
}

/** The zlib data of a PNG sharp wrote (no palette, not interlaced): a PDF Flate stream with PNG predictors. */
export function pngData(png: Buffer): {
  width: number;
  height: number;
  bits: number;
  colours: 1 | 3;
  data: Buffer;
} {
  let header: Buffer | undefined;
  const data: Buffer[] = [];
  for (let offset = 8; offset + 8 <= png.length; ) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = body;
    else if (type === 'IDAT') data.push(body);
    offset += 12 + length;
  }
  const colourType = header?.[9];
  if (header === undefined || (colourType !== 0 && colourType !== 2) || header[12] !== 0)
    throw new Error('the decoder wrote a PNG that is not plain grey or RGB');
  return {
    width: header.readUInt32BE(0),
    height: header.readUInt32BE(4),
    bits: header[8] ?? 8,
    colours: colourType === 0 ? 1 : 3,
    data: Buffer.concat(data),
  };
}

/** Page `page` decoded, upright, on white, in PNG-predicted Flate. */
async function losslessStream(source: Source, page: number, meta: Metadata, maxPixels: number) {
  const grey = (meta.channels ?? 3) - (meta.hasAlpha ? 1 : 0) === 1;
  const png = await pageOf(source, page, maxPixels)
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .toColourspace(grey ? 'b-w' : 'srgb')
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer();
  const { width, height, bits, colours, data } = pngData(png);
  const stream: ImageStream = {
    width,
    height,
    dict: {
      ColorSpace: colours === 1 ? 'DeviceGray' : 'DeviceRGB',
      BitsPerComponent: bits,
      Filter: 'FlateDecode',
      DecodeParms: { Predictor: 15, Colors: colours, BitsPerComponent: bits, Columns: width },
    },
    bytes: data,
  };
  return stream;
}

async function jpegStream(path: string, meta: Metadata): Promise<ImageStream> {
  return {
    width: meta.width,
    height: meta.height,
    dict: {
      ColorSpace: meta.channels === 1 ? 'DeviceGray' : 'DeviceRGB',
      BitsPerComponent: 8,
      Filter: 'DCTDecode',
    },
    bytes: await readFile(path),
  };
}

/**
 * Writes every page of the image at `path` into the PDF `output`; answers its page count. Refuses as
 * page-images.ts refuses (PixelCapError; the decoder's own error for damaged data).
 */
export async function writeImagePdf(
  path: string,
  format: ImageFormat,
  maxPixels: number,
  output: string,
): Promise<number> {
  const { source, sizes } = await decodablePages(path, format, maxPixels);
  const doc = await PDFDocument.create({ updateMetadata: false });
  for (const [page] of sizes.entries()) {
    const meta = await pageOf(source, page, maxPixels).metadata();
    const scale = 72 / resolutionOf(meta.density);
    const kept = keepsJpeg(meta);
    const image = kept ? await jpegStream(path, meta) : await losslessStream(source, page, meta, maxPixels);
    // A JPEG kept as it is is turned by its page's matrix; a decoded one was turned by the decoder.
    const orientation = kept ? (meta.orientation ?? 1) : 1;
    const [shownWidth, shownHeight] = isSideways(orientation)
      ? [image.height, image.width]
      : [image.width, image.height];
    const pdfPage = doc.addPage([shownWidth * scale, shownHeight * scale]);
    const stream = doc.context.stream(image.bytes, {
      Type: 'XObject',
      Subtype: 'Image',
      Width: image.width,
      Height: image.height,
      ...image.dict,
    });
    pdfPage.node.setXObject(PDFName.of('Im0'), doc.context.register(stream));
    pdfPage.pushOperators(
      pushGraphicsState(),
      concatTransformationMatrix(...placement(orientation, image.width, image.height, scale)),
      drawObject('Im0'),
      popGraphicsState(),
    );
  }
  await writeFile(output, await doc.save({ useObjectStreams: false }));
  return sizes.length;
}
