// Recognises an uploaded image by its bytes and reads its declared size from the header alone, so an
// absurd image is refused before anything decodes it (a 439 KB 20000x20000 PNG took
// tesseract.js 8.2 s and 1.3 GB). Only the few bytes each format needs are read, at their offsets.
//
// Headers are read the way the decoders read them, and a file they could read two ways is refused
// (a TIFF listing its width twice, of which libtiff takes the first; a JPEG whose
// RSTn marker was read as if it had a length, landing on a fake frame inside a comment). This check is
// not the only bound: the decoder runs under a memory limit of its own (ocr-process.ts).
import { type FileHandle, open } from 'node:fs/promises';
import { InvalidInputError } from '../../errors.js';
import type { InputFile } from '../types.js';
import { BMP_HEADER_BYTES, BmpError, readBmpHeader } from './bmp-image.js';

export type ImageFormat = 'png' | 'jpeg' | 'tiff' | 'webp' | 'bmp';

export interface Dimensions {
  width: number;
  height: number;
}

export interface ImageHeader {
  format: ImageFormat;
  /** One entry per page: every format has one, a TIFF may have several. */
  pages: Dimensions[];
}

/** OCR reads every page of a multi-page TIFF, one tesseract page each: this many at most. */
export const MAX_IMAGE_PAGES = 100;

/**
 * The longest side tesseract reads (its ImageThresholder refuses "Image too large" above INT16_MAX,
 * native and tesseract.js alike): a 65535x3 TIFF, far under the pixel cap, was a 500 (found by
 * the fuzzer). openapi.yaml, operation `ocr`.
 */
export const MAX_IMAGE_SIDE = 32_767;

/** A page no side of which tesseract refuses. */
export function withinSideLimit({ width, height }: Dimensions): boolean {
  return width <= MAX_IMAGE_SIDE && height <= MAX_IMAGE_SIDE;
}

/** The formats this check reads, as a refusal names them; images to PDF also takes JPEG 2000. */
export const ACCEPTED_FORMATS = 'PNG, JPEG, TIFF, WebP or BMP';

/**
 * Bytes read from the file at once, and kept for the reads that follow within them: a JPEG's markers up
 * to its frame header are a dozen small reads, each a trip to the thread pool, and most sit in its
 * first few hundred bytes.
 */
const READ_AHEAD_BYTES = 4096;

/** Positional reads of one file; a read past the end is a truncated header. */
class HeaderReader {
  #window: Buffer = Buffer.alloc(0);
  #windowAt = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly label: string,
  ) {}

  async bytes(offset: number, length: number): Promise<Buffer> {
    const buffer = await this.upTo(offset, length);
    if (buffer.length < length) throw this.truncated();
    return buffer;
  }

  /** Reads up to `length` bytes from `offset`; fewer at the end of the file. */
  async upTo(offset: number, length: number): Promise<Buffer> {
    const start = offset - this.#windowAt;
    if (start >= 0 && start + length <= this.#window.length)
      return this.#window.subarray(start, start + length);
    const buffer = Buffer.alloc(Math.max(length, READ_AHEAD_BYTES));
    const { bytesRead } = await this.file.read(buffer, 0, buffer.length, offset);
    // A new buffer each time: what an earlier read answered stays as it was.
    [this.#window, this.#windowAt] = [buffer.subarray(0, bytesRead), offset];
    return this.#window.subarray(0, Math.min(length, bytesRead));
  }

  truncated(): InvalidInputError {
    return new InvalidInputError(`${this.label} is truncated: its image header is incomplete`);
  }

  /** The file could be read two ways; decoders disagree on such files, so none is trusted. */
  ambiguous(why: string): InvalidInputError {
    return new InvalidInputError(`${this.label} is refused as ambiguous: ${why}`);
  }
}

// PNG: the IHDR chunk always comes first; width and height are big-endian u32 (PNG spec 11.2.2).
async function pngSize(reader: HeaderReader): Promise<Dimensions> {
  const ihdr = await reader.bytes(12, 12);
  if (ihdr.toString('latin1', 0, 4) !== 'IHDR') throw reader.truncated();
  return { width: ihdr.readUInt32BE(4), height: ihdr.readUInt32BE(8) };
}

// JPEG: walk the marker segments up to the first start of scan, as libjpeg's read_markers does
// (ITU T.81 B.1.1.2): SOI, TEM and RST0-7 stand alone, every other marker is followed by a big-endian
// length. The start-of-frame (SOF0-SOF15 except DHT C4, JPG C8 and DAC CC) holds height then width
// (B.2.2); libjpeg refuses a second one, so a file with two is ambiguous. Cameras put a few metadata
// segments first; a file of endless tiny segments is not walked to its end.
const MAX_JPEG_SEGMENTS = 1024;

function isStandalone(code: number): boolean {
  return code === 0x01 || code === 0xd8 || (code >= 0xd0 && code <= 0xd7);
}

async function jpegSize(reader: HeaderReader): Promise<Dimensions> {
  let offset = 2;
  let frame: Dimensions | undefined;
  for (let segment = 0; segment < MAX_JPEG_SEGMENTS; segment += 1) {
    const marker = await reader.bytes(offset, 2);
    if (marker[0] !== 0xff) throw reader.ambiguous('it has bytes where a JPEG marker should be');
    const code = marker[1] ?? 0;
    // Fill bytes (0xFF 0xFF) may pad between segments.
    if (code === 0xff) {
      offset += 1;
      continue;
    }
    if (isStandalone(code)) {
      offset += 2;
      continue;
    }
    if (code === 0xda || code === 0xd9) {
      // Start of scan or end of image: the frame must have come before.
      if (frame === undefined) throw reader.truncated();
      return frame;
    }
    const length = (await reader.bytes(offset + 2, 2)).readUInt16BE(0);
    if (length < 2) throw reader.truncated();
    if (code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc) {
      if (frame !== undefined) throw reader.ambiguous('it has two JPEG frame headers (SOF markers)');
      const size = await reader.bytes(offset + 5, 4);
      frame = { height: size.readUInt16BE(0), width: size.readUInt16BE(2) };
    }
    offset += 2 + length;
  }
  throw reader.truncated();
}

// TIFF: each image file directory (IFD) is a page; it holds ImageWidth (256) and ImageLength (257),
// each one SHORT or LONG value, in the byte order named by the header (TIFF 6.0, section 2). libtiff
// takes the first of two entries with one tag and other readers the last, so a directory listing a
// tag twice is ambiguous; so is a chain of directories that loops.
async function tiffPages(reader: HeaderReader, littleEndian: boolean, label: string): Promise<Dimensions[]> {
  const u16 = (b: Buffer, at: number) => (littleEndian ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number) => (littleEndian ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const pages: Dimensions[] = [];
  const seen = new Set<number>();
  let ifdOffset = u32(await reader.bytes(4, 4), 0);
  while (ifdOffset !== 0) {
    if (seen.has(ifdOffset)) throw reader.ambiguous('its TIFF directories form a loop');
    seen.add(ifdOffset);
    if (pages.length === MAX_IMAGE_PAGES) {
      throw new InvalidInputError(
        `${label} has more than ${MAX_IMAGE_PAGES} pages: send at most ${MAX_IMAGE_PAGES}`,
      );
    }
    const count = u16(await reader.bytes(ifdOffset, 2), 0);
    const entries = await reader.bytes(ifdOffset + 2, count * 12 + 4);
    const tags = new Set<number>();
    const size: Partial<Dimensions> = {};
    for (let at = 0; at < count * 12; at += 12) {
      const tag = u16(entries, at);
      if (tags.has(tag)) throw reader.ambiguous(`a TIFF directory lists tag ${tag} twice`);
      tags.add(tag);
      if (tag !== 256 && tag !== 257) continue;
      const type = u16(entries, at + 2);
      if ((type !== 3 && type !== 4) || u32(entries, at + 4) !== 1) {
        throw reader.ambiguous(
          `its TIFF ${tag === 256 ? 'ImageWidth' : 'ImageLength'} is not one SHORT or LONG`,
        );
      }
      const value = type === 3 ? u16(entries, at + 8) : u32(entries, at + 8);
      if (tag === 256) size.width = value;
      else size.height = value;
    }
    if (size.width === undefined || size.height === undefined) throw reader.truncated();
    pages.push({ width: size.width, height: size.height });
    ifdOffset = u32(entries, count * 12);
  }
  return pages;
}

// WebP: RIFF container whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended); each
// stores the size differently (RFC 9649 sections 2.5-2.7, RFC 6386 section 9.1).
async function webpSize(reader: HeaderReader): Promise<Dimensions> {
  const kind = (await reader.bytes(12, 4)).toString('latin1');
  if (kind === 'VP8 ') {
    // Frame tag (3 bytes), start code 9D 01 2A, then 14-bit width and height.
    const frame = await reader.bytes(20, 10);
    return { width: frame.readUInt16LE(6) & 0x3fff, height: frame.readUInt16LE(8) & 0x3fff };
  }
  if (kind === 'VP8L') {
    // Signature 0x2F, then width-1 and height-1 as 14-bit fields.
    const bits = (await reader.bytes(21, 4)).readUInt32LE(0);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (kind === 'VP8X') {
    // Flags (4 bytes), then canvas width-1 and height-1 as 24-bit fields.
    const canvas = await reader.bytes(24, 6);
    return { width: canvas.readUIntLE(0, 3) + 1, height: canvas.readUIntLE(3, 3) + 1 };
  }
  throw reader.truncated();
}

// BMP: the reader that decodes it (bmp-image.ts) parses its header here too.
async function bmpSize(reader: HeaderReader, label: string): Promise<Dimensions> {
  try {
    const { width, height } = readBmpHeader(await reader.upTo(0, BMP_HEADER_BYTES));
    return { width, height };
  } catch (error) {
    if (error instanceof BmpError)
      throw new InvalidInputError(`${label} is not a readable BMP: ${error.message}`);
    throw error;
  }
}

async function sniff(reader: HeaderReader, label: string, accepted: string): Promise<ImageHeader> {
  const notAnImage = () =>
    new InvalidInputError(`${label} is not a supported image: send ${accepted} (recognised by content)`);
  let magic: Buffer;
  try {
    magic = await reader.bytes(0, 12);
  } catch {
    throw notAnImage();
  }
  const ascii = (from: number, to: number) => magic.toString('latin1', from, to);
  if (magic.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { format: 'png', pages: [await pngSize(reader)] };
  }
  if (magic[0] === 0xff && magic[1] === 0xd8 && magic[2] === 0xff) {
    return { format: 'jpeg', pages: [await jpegSize(reader)] };
  }
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') {
    return { format: 'tiff', pages: await tiffPages(reader, magic[0] === 0x49, label) };
  }
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP')
    return { format: 'webp', pages: [await webpSize(reader)] };
  if (ascii(0, 2) === 'BM') return { format: 'bmp', pages: [await bmpSize(reader, label)] };
  throw notAnImage();
}

/** Refuses a page declared empty or with a side tesseract refuses. */
export function checkDeclaredSizes(pages: readonly Dimensions[], label: string): void {
  for (const { width, height } of pages) {
    if (width === 0 || height === 0) {
      throw new InvalidInputError(`${label} declares an empty image (${width}x${height} pixels)`);
    }
    if (!withinSideLimit({ width, height })) {
      throw new InvalidInputError(
        `${label} is ${width}x${height} pixels; this server reads images of at most ` +
          `${MAX_IMAGE_SIDE.toLocaleString('en-US')} pixels wide and high`,
      );
    }
  }
}

/**
 * Identifies `input` by its bytes and reads its declared size. Throws InvalidInputError naming it, and
 * the formats `accepted` when it is none of them.
 */
export async function readImageHeader(input: InputFile, accepted = ACCEPTED_FORMATS): Promise<ImageHeader> {
  const file = await open(input.path, 'r');
  try {
    const header = await sniff(new HeaderReader(file, input.label), input.label, accepted);
    checkDeclaredSizes(header.pages, input.label);
    return header;
  } finally {
    await file.close();
  }
}

/** Pixels of every page together: what the cap applies to (multi-page TIFF). */
export function pixelsOf(pages: readonly Dimensions[]): number {
  return pages.reduce((sum, page) => sum + page.width * page.height, 0);
}

/**
 * Refuses an image whose pages declare more than `maxPixels` in all, before any decoder sees it; the
 * message names whose cap it is (`holder`, e.g. "the Free plan allows"), the server's by default.
 */
export function checkPixelCap(
  pages: readonly Dimensions[],
  maxPixels: number,
  label: string,
  holder = 'this server reads',
): void {
  const pixels = pixelsOf(pages);
  if (pixels <= maxPixels) return;
  const [first] = pages;
  const size =
    pages.length === 1 && first !== undefined
      ? `is ${first.width}x${first.height} pixels (${pixels.toLocaleString('en-US')})`
      : `has ${pages.length} pages of ${pixels.toLocaleString('en-US')} pixels in all`;
  throw new InvalidInputError(
    `${label} ${size}; ${holder} images of at most ${maxPixels.toLocaleString('en-US')} pixels`,
  );
}
