// Page renders as Ghostscript's `pgmraw` device writes them: binary greyscale PGM (P5, Netpbm; the
// header may hold comment lines), compared as files, a chunk at a time, so memory stays bounded
// whatever page size a PDF declares (at 40 dpi a 200-inch page, PDF's largest, is 64 megapixels).
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
export function squaredError(a: Uint8Array, b: Uint8Array): number {
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

/** PSNR of the candidate page against the reference page; 0 when their sizes differ (the page changed size). */
export async function comparePgmFiles(referencePath: string, candidatePath: string): Promise<number> {
  const [reference, candidate] = [await open(referencePath), await open(candidatePath)];
  try {
    const [a, b] = [await readHeader(reference, referencePath), await readHeader(candidate, candidatePath)];
    if (a.width !== b.width || a.height !== b.height) return 0;
    const pixels = a.width * a.height;
    const [chunkA, chunkB] = [
      Buffer.alloc(Math.min(CHUNK_BYTES, pixels)),
      Buffer.alloc(Math.min(CHUNK_BYTES, pixels)),
    ];
    let sum = 0;
    for (let done = 0; done < pixels; ) {
      const length = Math.min(chunkA.length, pixels - done);
      await reference.read(chunkA, 0, length, a.dataOffset + done);
      await candidate.read(chunkB, 0, length, b.dataOffset + done);
      sum += squaredError(chunkA.subarray(0, length), chunkB.subarray(0, length));
      done += length;
    }
    return psnrOf(sum, pixels);
  } finally {
    await reference.close();
    await candidate.close();
  }
}
