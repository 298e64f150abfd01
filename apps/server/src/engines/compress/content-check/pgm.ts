// Page renders as Ghostscript's `pgmraw` device and pdftoppm write them: binary greyscale PGM (P5,
// Netpbm; the header may hold comment lines), compared as files, a band of rows at a time, so memory
// stays bounded whatever page size a PDF declares (at 40 dpi a 200-inch page, PDF's largest, is 64
// megapixels). Both pages are blurred (3x3 box) before they are compared, as the e2e judge does: a
// legitimately downsampled scan lands a fraction of a pixel away from the input's, which poppler, not
// smoothing images as Ghostscript's -dDOINTERPOLATE does, scored 18.7 dB unblurred (a test scan at
// /screen); a blank or missing image moves whole regions and stays far below the floor.
import { type FileHandle, open } from 'node:fs/promises';

export interface PgmHeader {
  width: number;
  height: number;
  /** Where the pixels start: one byte per pixel, 0 = black, 255 = white, rows top to bottom. */
  dataOffset: number;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0b || byte === 0x0c;
}

/** Parses the header of a P5 image with maxval 255; throws on anything else (a broken render is no page). */
export function parsePgmHeader(bytes: Uint8Array): PgmHeader {
  const fields: string[] = [];
  let at = 0;
  while (fields.length < 4 && at < bytes.length) {
    if (isSpace(bytes[at])) {
      at += 1;
    } else if (bytes[at] === 0x23) {
      while (at < bytes.length && bytes[at] !== 0x0a) at += 1;
    } else {
      const start = at;
      while (at < bytes.length && !isSpace(bytes[at]) && bytes[at] !== 0x23) at += 1;
      fields.push(Buffer.from(bytes.subarray(start, at)).toString('latin1'));
    }
  }
  const [magic, width, height, maxval] = fields;
  if (magic !== 'P5' || maxval !== '255' || !/^\d+$/.test(width ?? '') || !/^\d+$/.test(height ?? '')) {
    throw new Error(`not an 8-bit binary PGM (header ${JSON.stringify(fields.join(' '))})`);
  }
  // Exactly one whitespace byte separates the header from the pixels.
  return { width: Number(width), height: Number(height), dataOffset: at + 1 };
}

/** Sum of squared differences of two equally long runs of pixels. */
export function squaredError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) {
    const difference = (a[i] as number) - (b[i] as number);
    sum += difference * difference;
  }
  return sum;
}

/** Peak signal-to-noise ratio in dB of 8-bit pixels; Infinity when nothing differs. */
export function psnrOf(sumOfSquares: number, pixels: number): number {
  if (sumOfSquares === 0) return Number.POSITIVE_INFINITY;
  return 10 * Math.log10((255 * 255 * pixels) / sumOfSquares);
}

/**
 * The rows `from` to `to` (exclusive) of a band of `rows` rows of `width` pixels, each pixel the mean
 * of its 3x3 neighbourhood within the band. The caller loads one row of context above and below each
 * band, except at the page's edges, where the neighbourhood is clipped.
 */
export function blurBand(
  band: Uint8Array,
  width: number,
  rows: number,
  from: number,
  to: number,
): Float64Array {
  const out = new Float64Array((to - from) * width);
  for (let y = from; y < to; y += 1) {
    const [top, bottom] = [Math.max(0, y - 1), Math.min(rows - 1, y + 1)];
    for (let x = 0; x < width; x += 1) {
      const [left, right] = [Math.max(0, x - 1), Math.min(width - 1, x + 1)];
      let sum = 0;
      for (let yy = top; yy <= bottom; yy += 1) {
        for (let xx = left; xx <= right; xx += 1) sum += band[yy * width + xx] as number;
      }
      out[(y - from) * width + x] = sum / ((bottom - top + 1) * (right - left + 1));
    }
  }
  return out;
}

/** A pixel darker than this is a mark: print, not paper or the light noise of a scan (floors.ts). */
export const MARK_BELOW = 200;

/** How many pixels of `pixels` are marks. */
export function countMarks(pixels: Uint8Array): number {
  let marks = 0;
  for (const pixel of pixels) if (pixel < MARK_BELOW) marks += 1;
  return marks;
}

const HEADER_BYTES = 1024;
const CHUNK_BYTES = 1024 * 1024;

async function readHeader(file: FileHandle, path: string): Promise<PgmHeader> {
  const buffer = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await file.read(buffer, 0, HEADER_BYTES, 0);
  const header = parsePgmHeader(buffer.subarray(0, bytesRead));
  const { size } = await file.stat();
  if (size < header.dataOffset + header.width * header.height) {
    throw new Error(`${path} is cut short: ${size} bytes for ${header.width}x${header.height} pixels`);
  }
  return header;
}

export interface PageComparison {
  /** PSNR of the candidate against the reference, both blurred; 0 when their sizes differ (the page changed size). */
  psnrDb: number;
  /** Marks (pixels darker than MARK_BELOW, unblurred) on each page. */
  marks: { reference: number; candidate: number };
}

export async function comparePgmFiles(referencePath: string, candidatePath: string): Promise<PageComparison> {
  const [reference, candidate] = [await open(referencePath), await open(candidatePath)];
  try {
    const [a, b] = [await readHeader(reference, referencePath), await readHeader(candidate, candidatePath)];
    if (a.width !== b.width || a.height !== b.height)
      return { psnrDb: 0, marks: { reference: 0, candidate: 0 } };
    const { width, height } = a;
    const bandRows = Math.max(1, Math.floor(CHUNK_BYTES / width));
    const bandBytes = Math.min(height, bandRows + 2) * width;
    const [chunkA, chunkB] = [Buffer.alloc(bandBytes), Buffer.alloc(bandBytes)];
    let sum = 0;
    const marks = { reference: 0, candidate: 0 };
    for (let first = 0; first < height; first += bandRows) {
      const last = Math.min(height, first + bandRows);
      // One row of context on each side, where the page has one.
      const [top, bottom] = [Math.max(0, first - 1), Math.min(height, last + 1)];
      const length = (bottom - top) * width;
      await reference.read(chunkA, 0, length, a.dataOffset + top * width);
      await candidate.read(chunkB, 0, length, b.dataOffset + top * width);
      const [from, to] = [first - top, last - top];
      marks.reference += countMarks(chunkA.subarray(from * width, to * width));
      marks.candidate += countMarks(chunkB.subarray(from * width, to * width));
      sum += squaredError(
        blurBand(chunkA.subarray(0, length), width, bottom - top, from, to),
        blurBand(chunkB.subarray(0, length), width, bottom - top, from, to),
      );
    }
    return { psnrDb: psnrOf(sum, width * height), marks };
  } finally {
    await reference.close();
    await candidate.close();
  }
}
