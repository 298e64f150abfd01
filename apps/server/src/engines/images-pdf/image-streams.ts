// Each page of one uploaded image as the PDF image it becomes, nothing of it lost (openapi.yaml
// `imagesToPdf`). Runs only inside an OCR process, under its memory limit, with the OCR path's decoders
// (../ocr/page-images.ts: sharp, our BMP reader, the same pixel cap). As img2pdf does it: a JPEG or JPEG
// 2000 is the file's own bytes; a PNG without transparency its own zlib data, palette and bit depth; the
// rest decoded and stored PNG-style in Flate, transparency as a soft mask, 16-bit samples as 16.
import { readFile } from 'node:fs/promises';
import { deflateSync, inflateSync } from 'node:zlib';
import sharp, { type Metadata } from 'sharp';
import { pngData, resolutionOf } from '../ocr/image-pdf.js';
import { decodablePages, pageOf } from '../ocr/page-images.js';
import { readJp2Header } from './jp2-header.js';
import type { PdfValue } from './pdf-objects.js';
import { asBilevel, type Planes, toPlanes } from './pixel-planes.js';
import type { PdfImageFormat } from './types.js';

/** zlib level of decoded images: level 9 took twice as long for 1-2% less on photos and scans. */
const FLATE_LEVEL = 6;
/** An embedded ICC profile larger than this is a bomb, not a colour profile. */
const MAX_ICC_BYTES = 4 * 2 ** 20;

export interface ImageData {
  /** The image dictionary's entries beyond its type, size and colour space. */
  dict: Record<string, PdfValue>;
  data: Uint8Array;
}

/** The colour an image's samples are in; absent for JPEG 2000, whose own data says it. */
export interface ImageColour {
  device: '/DeviceGray' | '/DeviceRGB' | '/DeviceCMYK';
  icc?: Buffer | undefined;
  /** RGB triplets of an indexed image. */
  palette?: Buffer | undefined;
}

export interface ImagePage {
  /** Stored pixels, before EXIF orientation turns them. */
  width: number;
  height: number;
  /** EXIF orientation, 1 to 8. */
  orientation: number;
  dpi: number;
  image: ImageData;
  colour?: ImageColour | undefined;
  /** Opacity, a DeviceGray image of the same size. */
  smask?: ImageData | undefined;
}

const DEVICES = { 1: '/DeviceGray', 3: '/DeviceRGB', 4: '/DeviceCMYK' } as const;

/** The colour space an ICC profile's header names (ICC.1 7.2.6), for its number of components. */
function iccComponents(icc: Buffer): number | undefined {
  const space = icc.toString('latin1', 16, 20);
  return space === 'GRAY' ? 1 : space === 'RGB ' ? 3 : space === 'CMYK' ? 4 : undefined;
}

/** `icc` when it describes `components` components (a profile the samples no longer match is left out). */
function matchingIcc(icc: Buffer | undefined, components: number): Buffer | undefined {
  return icc !== undefined && icc.length <= MAX_ICC_BYTES && iccComponents(icc) === components
    ? icc
    : undefined;
}

// --- JPEG: its bytes, turned by the page -------------------------------------------------------------

/** An Adobe APP14 segment before the scan: Adobe's CMYK JPEGs store every sample inverted. */
function hasAdobeMarker(jpeg: Buffer): boolean {
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const code = jpeg[at + 1] ?? 0;
    if (code === 0xda || code === 0xd9) return false;
    if (code === 0xee && jpeg.toString('latin1', at + 4, at + 9) === 'Adobe') return true;
    at += 2 + jpeg.readUInt16BE(at + 2);
  }
  return false;
}

function jpegPage(bytes: Buffer, meta: Metadata): ImagePage | undefined {
  const components = meta.channels;
  const space = { 1: 'b-w', 3: 'srgb', 4: 'cmyk' }[components as 1 | 3 | 4];
  if (meta.depth !== 'uchar' || space === undefined || meta.space !== space) return undefined;
  const inverted = components === 4 && hasAdobeMarker(bytes);
  return {
    width: meta.width,
    height: meta.height,
    orientation: meta.orientation ?? 1,
    dpi: resolutionOf(meta.density),
    image: {
      dict: {
        BitsPerComponent: 8,
        Filter: '/DCTDecode',
        ...(inverted ? { Decode: [1, 0, 1, 0, 1, 0, 1, 0] } : {}),
      },
      data: bytes,
    },
    colour: { device: DEVICES[components as 1 | 3 | 4], icc: matchingIcc(meta.icc, components) },
  };
}

// --- PNG: its zlib data, when nothing needs decoding -------------------------------------------------

interface PngParts {
  width: number;
  height: number;
  bits: number;
  colourType: number;
  interlaced: boolean;
  palette?: Buffer | undefined;
  transparency: boolean;
  icc?: Buffer | undefined;
  idat: Buffer;
}

function pngParts(png: Buffer): PngParts {
  const idat: Buffer[] = [];
  let header: Buffer | undefined;
  let palette: Buffer | undefined;
  let transparency = false;
  let icc: Buffer | undefined;
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') header = body;
    else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = true;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'iCCP') {
      // Profile name, a NUL, the compression method (0), then zlib data (PNG 11.3.3.3).
      const nul = body.indexOf(0);
      icc = inflateSync(body.subarray(nul + 2), { maxOutputLength: MAX_ICC_BYTES });
    } else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (header === undefined || header.length < 13) throw new Error('the PNG has no IHDR chunk');
  return {
    width: header.readUInt32BE(0),
    height: header.readUInt32BE(4),
    bits: header[8] ?? 0,
    colourType: header[9] ?? 0,
    interlaced: header[12] !== 0,
    palette,
    transparency,
    icc,
    idat: Buffer.concat(idat),
  };
}

function pngPage(bytes: Buffer, meta: Metadata): ImagePage | undefined {
  const png = pngParts(bytes);
  const colours = { 0: 1, 2: 3, 3: 1 }[png.colourType as 0 | 2 | 3];
  if (colours === undefined || png.interlaced || png.transparency) return undefined;
  if (png.colourType === 3 && png.palette === undefined) return undefined;
  const components = png.colourType === 3 ? 3 : colours;
  return {
    width: png.width,
    height: png.height,
    orientation: meta.orientation ?? 1,
    dpi: resolutionOf(meta.density),
    image: {
      dict: {
        BitsPerComponent: png.bits,
        Filter: '/FlateDecode',
        DecodeParms: { Predictor: 15, Colors: colours, BitsPerComponent: png.bits, Columns: png.width },
      },
      data: png.idat,
    },
    colour: {
      device: DEVICES[components as 1 | 3],
      icc: matchingIcc(png.icc, components),
      palette: png.colourType === 3 ? png.palette : undefined,
    },
  };
}

// --- Everything else: decoded, stored losslessly -----------------------------------------------------

/** A plane in PNG-style Flate: sharp's PNG encoder filters each row, its zlib data is the stream. */
async function pngFlate(plane: Buffer, width: number, height: number, colours: 1 | 3, bits: 8 | 16) {
  const samples = bits === 8 ? plane : new Uint16Array(plane.buffer, plane.byteOffset, plane.length / 2);
  const space = colours === 1 ? (bits === 8 ? 'b-w' : 'grey16') : bits === 8 ? 'srgb' : 'rgb16';
  const png = await sharp(samples, { raw: { width, height, channels: colours } })
    .toColourspace(space)
    .png({ compressionLevel: FLATE_LEVEL, adaptiveFiltering: true })
    .toBuffer();
  const written = pngData(png);
  if (written.bits !== bits || written.colours !== colours)
    throw new Error('sharp wrote another PNG than asked');
  return {
    dict: {
      BitsPerComponent: bits,
      Filter: '/FlateDecode',
      DecodeParms: { Predictor: 15, Colors: colours, BitsPerComponent: bits, Columns: width },
    },
    data: written.data,
  };
}

async function planeData(planes: Planes, plane: Buffer, colours: 1 | 3): Promise<ImageData> {
  const bilevel =
    colours === 1 && planes.bits === 8 ? asBilevel(plane, planes.width, planes.height) : undefined;
  if (bilevel !== undefined) {
    return {
      dict: { BitsPerComponent: 1, Filter: '/FlateDecode' },
      data: deflateSync(bilevel, { level: 9 }),
    };
  }
  return pngFlate(plane, planes.width, planes.height, colours, planes.bits);
}

async function decodedPages(path: string, format: PdfImageFormat, maxPixels: number): Promise<ImagePage[]> {
  if (format === 'jp2') throw new Error('JPEG 2000 is embedded, never decoded');
  const { source, sizes } = await decodablePages(path, format, maxPixels);
  const pages: ImagePage[] = [];
  for (const [page] of sizes.entries()) {
    const meta = await pageOf(source, page, maxPixels).metadata();
    const bits = meta.depth === 'ushort' ? 16 : 8;
    // The profile kept, the samples left in it: sharp converts only the layout (grey to RGB, CMYK to RGB).
    const { data, info } = await pageOf(source, page, maxPixels)
      .keepIccProfile()
      .toColourspace(bits === 16 ? 'rgb16' : 'srgb')
      .raw({ depth: bits === 16 ? 'ushort' : 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 && info.channels !== 4)
      throw new Error(`sharp decoded ${info.channels} channels`);
    const rgbProfile = meta.icc !== undefined && iccComponents(meta.icc) === 3;
    const planes = toPlanes(data, info.width, info.height, info.channels, bits, !rgbProfile);
    pages.push({
      width: info.width,
      height: info.height,
      orientation: meta.orientation ?? 1,
      dpi: resolutionOf(meta.density),
      image: await planeData(planes, planes.colour, planes.colours),
      colour: { device: DEVICES[planes.colours], icc: matchingIcc(meta.icc, planes.colours) },
      smask: planes.alpha === undefined ? undefined : await planeData(planes, planes.alpha, 1),
    });
  }
  return pages;
}

function jp2Page(bytes: Buffer): ImagePage {
  const header = readJp2Header(bytes);
  return {
    width: header.width,
    height: header.height,
    orientation: 1,
    dpi: resolutionOf(header.dpi),
    // No colour space: the JPX data's own applies, its ICC profile with it (PDF 32000-1 8.9.5).
    image: { dict: { Filter: '/JPXDecode', ...(header.alpha ? { SMaskInData: 1 } : {}) }, data: bytes },
  };
}

/** A JPEG or PNG kept as it is (its bytes, or its zlib data), with what sharp read of its header. */
async function keptPage(
  path: string,
  format: 'jpeg' | 'png',
  maxPixels: number,
): Promise<{ page: ImagePage; bytes: Buffer; meta: Metadata } | undefined> {
  const bytes = await readFile(path);
  const meta = await sharp(bytes, { limitInputPixels: maxPixels }).metadata();
  const page = format === 'jpeg' ? jpegPage(bytes, meta) : pngPage(bytes, meta);
  return page === undefined ? undefined : { page, bytes, meta };
}

/**
 * Every page of the image at `path` (the decoder's refusals: PixelCapError, its own errors for damage).
 * A JPEG or PNG kept as it is comes back undecoded: checkKeptImage judges its data.
 */
export async function imagePages(
  path: string,
  format: PdfImageFormat,
  maxPixels: number,
): Promise<ImagePage[]> {
  if (format === 'jp2') return [jp2Page(await readFile(path))];
  if (format === 'jpeg' || format === 'png') {
    const kept = await keptPage(path, format, maxPixels);
    if (kept !== undefined) return [kept.page];
  }
  return decodedPages(path, format, maxPixels);
}

/**
 * Refuses damaged data in a JPEG or PNG that imagePages keeps as it is, as the OCR path refuses it (a
 * reader would show a broken page): a JPEG decoded at an eighth of its size (libjpeg's scaled decoding
 * still reads every coded block, for a fraction of the work), the PNG whole, streamed to a small size;
 * a warning is a failure. Every other image is decoded as it is written, which is its check. Apart from
 * imagePages so that it can run beside the writing, in another OCR process: it is most of the work of
 * a photo, whose bytes are only copied.
 */
export async function checkKeptImage(path: string, format: PdfImageFormat, maxPixels: number): Promise<void> {
  if (format !== 'jpeg' && format !== 'png') return;
  const kept = await keptPage(path, format, maxPixels);
  if (kept === undefined) return;
  await sharp(kept.bytes, { limitInputPixels: maxPixels, failOn: 'warning' })
    .resize({ width: Math.max(1, Math.ceil(kept.meta.width / 8)) })
    .raw()
    .toBuffer();
}
