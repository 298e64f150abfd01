// Recognises an uploaded image by its bytes and reads its declared size from the header alone, so an
// absurd image is refused before anything decodes it (issue #3: a 439 KB 20000x20000 PNG took
// tesseract.js 8.2 s and 1.3 GB). Only the few bytes each format needs are read, at their offsets.
import { type FileHandle, open } from 'node:fs/promises';
import { InvalidInputError } from '../../errors.js';
import type { InputFile } from '../types.js';

export type ImageFormat = 'png' | 'jpeg' | 'tiff' | 'webp' | 'bmp';

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
}

const ACCEPTED_FORMATS = 'PNG, JPEG, TIFF, WebP or BMP';

/** Positional reads of one file; a read past the end is a truncated header. */
class HeaderReader {
  constructor(
    private readonly file: FileHandle,
    private readonly label: string,
  ) {}

  async bytes(offset: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.file.read(buffer, 0, length, offset);
    if (bytesRead < length) throw this.truncated();
    return buffer;
  }

  truncated(): InvalidInputError {
    return new InvalidInputError(`${this.label} is truncated: its image header is incomplete`);
  }
}

type Dimensions = Pick<ImageHeader, 'width' | 'height'>;

// PNG: the IHDR chunk always comes first; width and height are big-endian u32 (PNG spec 11.2.2).
async function pngSize(reader: HeaderReader): Promise<Dimensions> {
  const ihdr = await reader.bytes(12, 12);
  if (ihdr.toString('latin1', 0, 4) !== 'IHDR') throw reader.truncated();
  return { width: ihdr.readUInt32BE(4), height: ihdr.readUInt32BE(8) };
}

// JPEG: walk the marker segments up to the first start-of-frame (SOF0-SOF15 except DHT C4, JPG C8
// and DAC CC), whose payload holds height then width as big-endian u16 (ITU T.81 B.2.2). Cameras put
// a few metadata segments first; a file of endless tiny segments is not walked to its end.
const MAX_JPEG_SEGMENTS = 1024;

async function jpegSize(reader: HeaderReader): Promise<Dimensions> {
  let offset = 2;
  for (let segment = 0; segment < MAX_JPEG_SEGMENTS; segment += 1) {
    const marker = await reader.bytes(offset, 4);
    if (marker[0] !== 0xff) throw reader.truncated();
    const code = marker[1] ?? 0;
    // Fill bytes (0xFF 0xFF) may pad between segments.
    if (code === 0xff) {
      offset += 1;
      continue;
    }
    if (code >= 0xc0 && code <= 0xcf && code !== 0xc4 && code !== 0xc8 && code !== 0xcc) {
      const frame = await reader.bytes(offset + 5, 4);
      return { height: frame.readUInt16BE(0), width: frame.readUInt16BE(2) };
    }
    // Start of scan or end of image before any frame header: no dimensions to be found.
    if (code === 0xda || code === 0xd9) throw reader.truncated();
    offset += 2 + marker.readUInt16BE(2);
  }
  throw reader.truncated();
}

// TIFF: the first image file directory holds ImageWidth (256) and ImageLength (257), each SHORT or
// LONG, in the byte order named by the header (TIFF 6.0, section 2). A directory that links to a
// next one makes a multi-page file: tesseract.js would read its first page only while the native
// binary reads every page (each of any size), so one image per request is the rule for both.
async function tiffSize(reader: HeaderReader, littleEndian: boolean, label: string): Promise<Dimensions> {
  const u16 = (b: Buffer, at: number) => (littleEndian ? b.readUInt16LE(at) : b.readUInt16BE(at));
  const u32 = (b: Buffer, at: number) => (littleEndian ? b.readUInt32LE(at) : b.readUInt32BE(at));
  const ifdOffset = u32(await reader.bytes(4, 4), 0);
  const count = u16(await reader.bytes(ifdOffset, 2), 0);
  const entries = await reader.bytes(ifdOffset + 2, count * 12 + 4);
  if (u32(entries, count * 12) !== 0) {
    throw new InvalidInputError(`${label} is a multi-page TIFF: send one page per request`);
  }
  const size: Partial<Dimensions> = {};
  for (let at = 0; at < count * 12; at += 12) {
    const tag = u16(entries, at);
    if (tag !== 256 && tag !== 257) continue;
    const type = u16(entries, at + 2);
    const value = type === 3 ? u16(entries, at + 8) : u32(entries, at + 8);
    if (tag === 256) size.width = value;
    else size.height = value;
  }
  if (size.width === undefined || size.height === undefined) throw reader.truncated();
  return { width: size.width, height: size.height };
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

// BMP: a 12-byte OS/2 core header has 16-bit sizes; every later DIB header has signed 32-bit ones,
// the height negative for top-down rows.
async function bmpSize(reader: HeaderReader): Promise<Dimensions> {
  const dib = await reader.bytes(14, 12);
  if (dib.readUInt32LE(0) === 12) return { width: dib.readUInt16LE(4), height: dib.readUInt16LE(6) };
  return { width: Math.abs(dib.readInt32LE(4)), height: Math.abs(dib.readInt32LE(8)) };
}

async function sniff(reader: HeaderReader, label: string): Promise<ImageHeader> {
  const notAnImage = () =>
    new InvalidInputError(
      `${label} is not a supported image: send ${ACCEPTED_FORMATS} (recognised by content)`,
    );
  let magic: Buffer;
  try {
    magic = await reader.bytes(0, 12);
  } catch {
    throw notAnImage();
  }
  const ascii = (from: number, to: number) => magic.toString('latin1', from, to);
  if (magic.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { format: 'png', ...(await pngSize(reader)) };
  }
  if (magic[0] === 0xff && magic[1] === 0xd8 && magic[2] === 0xff) {
    return { format: 'jpeg', ...(await jpegSize(reader)) };
  }
  if (ascii(0, 4) === 'II*\0' || ascii(0, 4) === 'MM\0*') {
    return { format: 'tiff', ...(await tiffSize(reader, magic[0] === 0x49, label)) };
  }
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP')
    return { format: 'webp', ...(await webpSize(reader)) };
  if (ascii(0, 2) === 'BM') return { format: 'bmp', ...(await bmpSize(reader)) };
  throw notAnImage();
}

/** Identifies `input` by its bytes and reads its declared size. Throws InvalidInputError naming it. */
export async function readImageHeader(input: InputFile): Promise<ImageHeader> {
  const file = await open(input.path, 'r');
  try {
    const header = await sniff(new HeaderReader(file, input.label), input.label);
    if (header.width === 0 || header.height === 0) {
      throw new InvalidInputError(
        `${input.label} declares an empty image (${header.width}x${header.height} pixels)`,
      );
    }
    return header;
  } finally {
    await file.close();
  }
}

/** Refuses an image whose declared width x height exceeds `maxPixels`, before any decoder sees it. */
export function checkPixelCap(header: ImageHeader, maxPixels: number, label: string): void {
  const pixels = header.width * header.height;
  if (pixels > maxPixels) {
    throw new InvalidInputError(
      `${label} is ${header.width}x${header.height} pixels (${pixels.toLocaleString('en-US')}); ` +
        `this server reads images of at most ${maxPixels.toLocaleString('en-US')} pixels`,
    );
  }
}
