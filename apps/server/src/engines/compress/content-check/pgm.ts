// Page renders as Ghostscript's `pgmraw` device and pdftoppm write them: binary greyscale PGM (P5,
// Netpbm; the header may hold comment lines), or binary colour PPM (P6) read as its grey
// (greyOfRgb), compared as files, a band of rows at a time, so memory
// stays bounded whatever page size a PDF declares (at 40 dpi a 200-inch page, PDF's largest, is 64
// megapixels). Both pages are blurred (3x3 box) before they are compared, as the e2e judge does: a
// legitimately downsampled scan lands a fraction of a pixel away from the input's, which poppler, not
// smoothing images as Ghostscript's -dDOINTERPOLATE does, scored 18.7 dB unblurred (a test scan at
// /screen); a blank or missing image moves whole regions and stays far below the floor. The same
// pixels are also summed per tile (tileGrid, about an inch square): a page-wide PSNR averages a short
// rule gone, or one line drawn in another font, into a fraction of a decibel, where its tile shows it.
import { type FileHandle, open } from 'node:fs/promises';

export interface PgmHeader {
  width: number;
  height: number;
  /**
   * Where the pixels start, rows top to bottom: one byte per pixel (P5: 0 = black, 255 = white) or
   * three (P6: red, green, blue).
   */
  dataOffset: number;
  /** Bytes per pixel: 1 for grey (P5), 3 for colour (P6). */
  channels: 1 | 3;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x0b || byte === 0x0c;
}

/**
 * Parses the header of a P5 or P6 image with maxval 255; throws on anything else (a broken render is no
 * page).
 */
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
  const channels = magic === 'P5' ? 1 : magic === 'P6' ? 3 : undefined;
  if (
    channels === undefined ||
    maxval !== '255' ||
    !/^\d+$/.test(width ?? '') ||
    !/^\d+$/.test(height ?? '')
  ) {
    throw new Error(`not an 8-bit binary PGM or PPM (header ${JSON.stringify(fields.join(' '))})`);
  }
  // Exactly one whitespace byte separates the header from the pixels.
  return { width: Number(width), height: Number(height), dataOffset: at + 1, channels };
}

/**
 * The grey of `pixels` red, green, blue pixels from `rgb`, into `grey`: poppler's own grey for device
 * RGB (GfxDeviceRGBColorSpace::getGray, 0.3 R + 0.59 G + 0.11 B, rounded), in 16-bit fixed point.
 * pdftoppm draws photos in colour about twice as fast as in grey (a 4-megapixel camera JPEG page at 40
 * dpi: 0.18 s of CPU against 0.34 s, a 300 dpi scanned page 0.03 s against 0.09 s), and the grey read
 * from its colour render is its grey render's within rounding (of a camera photo page, 89% of pixels
 * equal, the rest one level apart, both ways alike).
 */
export function greyOfRgb(rgb: Uint8Array, grey: Uint8Array, pixels: number): void {
  for (let at = 0, from = 0; at < pixels; at += 1, from += 3) {
    grey[at] =
      (19661 * (rgb[from] as number) +
        38666 * (rgb[from + 1] as number) +
        7209 * (rgb[from + 2] as number) +
        32768) >>>
      16;
  }
}

/** Peak signal-to-noise ratio in dB of 8-bit pixels; Infinity when nothing differs. */
export function psnrOf(sumOfSquares: number, pixels: number): number {
  if (sumOfSquares === 0) return Number.POSITIVE_INFINITY;
  return 10 * Math.log10((255 * 255 * pixels) / sumOfSquares);
}

/**
 * Row `y` of a band of `rows` rows of `width` pixels, each pixel the mean of its 3x3 neighbourhood
 * within the band, written to `out` (`width` long; `columns` is scratch of the same length). The
 * caller loads one row of context above and below each band, except at the page's edges, where the
 * neighbourhood is clipped. One row at a time, into buffers reused for the whole page: blurring whole
 * bands into fresh arrays cost more than all the rest of a comparison (a 1000 x 750 page was blurred
 * through 6 MB arrays, twice as slow as through rows that stay in the processor's cache).
 */
export function blurRow(
  band: Uint8Array,
  width: number,
  rows: number,
  y: number,
  columns: Float64Array,
  out: Float64Array,
): void {
  // Separable: the neighbourhood is a clipped rectangle, so each pixel's mean is a column sum of up to
  // three rows, summed over up to three columns, over their count: a third of the additions of 3x3.
  const top = y > 0 ? y - 1 : 0;
  const bottom = y + 1 < rows ? y + 1 : rows - 1;
  const tall = bottom - top + 1;
  const [upper, middle, lower] = [top * width, (top + 1) * width, bottom * width];
  if (tall === 3) {
    for (let x = 0; x < width; x += 1)
      columns[x] = (band[upper + x] as number) + (band[middle + x] as number) + (band[lower + x] as number);
  } else if (tall === 2) {
    for (let x = 0; x < width; x += 1) columns[x] = (band[upper + x] as number) + (band[lower + x] as number);
  } else {
    for (let x = 0; x < width; x += 1) columns[x] = band[upper + x] as number;
  }
  if (width === 1) {
    out[0] = (columns[0] as number) / tall;
    return;
  }
  const last = width - 1;
  out[0] = ((columns[0] as number) + (columns[1] as number)) / (tall * 2);
  const inner = tall * 3;
  let [left, centre] = [columns[0] as number, columns[1] as number];
  for (let x = 1; x < last; x += 1) {
    const right = columns[x + 1] as number;
    out[x] = (left + centre + right) / inner;
    left = centre;
    centre = right;
  }
  out[last] = ((columns[last - 1] as number) + (columns[last] as number)) / (tall * 2);
}

/** A pixel darker than this is a mark: print, not paper or the light noise of a scan (floors.ts). */
export const MARK_BELOW = 200;

const HEADER_BYTES = 1024;
const CHUNK_BYTES = 1024 * 1024;

async function readHeader(file: FileHandle, path: string): Promise<PgmHeader> {
  const buffer = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await file.read(buffer, 0, HEADER_BYTES, 0);
  const header = parsePgmHeader(buffer.subarray(0, bytesRead));
  const { size } = await file.stat();
  if (size < header.dataOffset + header.width * header.height * header.channels) {
    throw new Error(`${path} is cut short: ${size} bytes for ${header.width}x${header.height} pixels`);
  }
  return header;
}

/** The tiles a page is cut into, in pixels: whole rows and columns of tiles, each about `size` square. */
export interface TileGrid {
  columns: number;
  rows: number;
  /** The tile column of each pixel column, and the tile row of each pixel row. */
  columnOf: Uint32Array;
  rowOf: Uint32Array;
}

/**
 * `size`-pixel tiles over a `width` x `height` page, spread evenly: the page is cut into the whole
 * number of tiles nearest to `size` along each side, so no sliver of a tile is left at an edge, where a
 * few pixels would carry a tile's weight.
 */
export function tileGrid(width: number, height: number, size: number): TileGrid {
  const along = (pixels: number) => {
    const count = Math.max(1, Math.round(pixels / Math.max(1, size)));
    const of = new Uint32Array(pixels);
    for (let at = 0; at < pixels; at += 1) of[at] = Math.floor((at * count) / pixels);
    return { count, of };
  };
  const [across, down] = [along(width), along(height)];
  return { columns: across.count, rows: down.count, columnOf: across.of, rowOf: down.of };
}

/** A pixel at least this light is paper: nothing drawn there (both renderers draw white paper as 255). */
export const PAPER_FROM = 250;

/** One tile's sums over its pixels, both pages blurred: its PSNR, its structure, and where paper changed. */
export interface TileSums {
  pixels: number;
  /** Sum of squared differences. */
  squaredError: number;
  /** Sums of the reference's and the candidate's pixels, of their squares and of their products. */
  reference: number;
  candidate: number;
  referenceSquares: number;
  candidateSquares: number;
  products: number;
  /** Pixels that are paper (PAPER_FROM, unblurred) on either page, and their squared differences. */
  paperPixels: number;
  paperSquaredError: number;
  /** Marks (MARK_BELOW, unblurred) on each page. */
  referenceMarks: number;
  candidateMarks: number;
}

const SUMS = 11;

/** Accumulates TileSums for every tile of a grid, a row of pixels at a time. */
class TileAccumulator {
  readonly #sums: Float64Array;
  /** Where each tile column ends: a row crosses each tile in one run of pixels. */
  readonly #columnEnds: Uint32Array;

  constructor(readonly grid: TileGrid) {
    this.#sums = new Float64Array(grid.columns * grid.rows * SUMS);
    const { columnOf } = grid;
    this.#columnEnds = new Uint32Array(grid.columns);
    for (let x = 0; x < columnOf.length; x += 1) this.#columnEnds[columnOf[x] as number] = x + 1;
  }

  /**
   * Adds row `y` of both pages: `a` the reference's, `b` the candidate's, blurred, and the same row
   * unblurred in `rawA` and `rawB` from `rawAt` on.
   */
  addRow(
    a: Float64Array,
    b: Float64Array,
    rawA: Uint8Array,
    rawB: Uint8Array,
    rawAt: number,
    y: number,
  ): void {
    const sums = this.#sums;
    const columnEnds = this.#columnEnds;
    const { rowOf, columns } = this.grid;
    const rowBase = (rowOf[y] as number) * columns;
    let x = 0;
    // Summed in locals along each tile's run of pixels, written once per run.
    for (let column = 0; column < columns; column += 1) {
      const end = columnEnds[column] as number;
      let n = 0;
      let error = 0;
      let sumP = 0;
      let sumQ = 0;
      let squaresP = 0;
      let squaresQ = 0;
      let products = 0;
      let paper = 0;
      let paperError = 0;
      let marksP = 0;
      let marksQ = 0;
      for (; x < end; x += 1) {
        const p = a[x] as number;
        const q = b[x] as number;
        const difference = (p - q) * (p - q);
        n += 1;
        error += difference;
        sumP += p;
        sumQ += q;
        squaresP += p * p;
        squaresQ += q * q;
        products += p * q;
        const rawP = rawA[rawAt + x] as number;
        const rawQ = rawB[rawAt + x] as number;
        if (rawP >= PAPER_FROM || rawQ >= PAPER_FROM) {
          paper += 1;
          paperError += difference;
        }
        if (rawP < MARK_BELOW) marksP += 1;
        if (rawQ < MARK_BELOW) marksQ += 1;
      }
      const at = (rowBase + column) * SUMS;
      sums[at] = (sums[at] as number) + n;
      sums[at + 1] = (sums[at + 1] as number) + error;
      sums[at + 2] = (sums[at + 2] as number) + sumP;
      sums[at + 3] = (sums[at + 3] as number) + sumQ;
      sums[at + 4] = (sums[at + 4] as number) + squaresP;
      sums[at + 5] = (sums[at + 5] as number) + squaresQ;
      sums[at + 6] = (sums[at + 6] as number) + products;
      sums[at + 7] = (sums[at + 7] as number) + paper;
      sums[at + 8] = (sums[at + 8] as number) + paperError;
      sums[at + 9] = (sums[at + 9] as number) + marksP;
      sums[at + 10] = (sums[at + 10] as number) + marksQ;
    }
  }

  /**
   * Adds row `y` where both pages are white in every row its blur reads: each blurred pixel is exactly
   * 255 and paper, so each tile's run adds whole multiples of 255 and its square, which are the very sums
   * addRow adds pixel by pixel (whole numbers, added exactly). Most rows of a text page are margin or
   * the space between lines.
   */
  addWhiteRow(y: number): void {
    const sums = this.#sums;
    const columnEnds = this.#columnEnds;
    const { rowOf, columns } = this.grid;
    const rowBase = (rowOf[y] as number) * columns;
    let start = 0;
    for (let column = 0; column < columns; column += 1) {
      const end = columnEnds[column] as number;
      const n = end - start;
      start = end;
      const at = (rowBase + column) * SUMS;
      sums[at] = (sums[at] as number) + n;
      sums[at + 2] = (sums[at + 2] as number) + 255 * n;
      sums[at + 3] = (sums[at + 3] as number) + 255 * n;
      sums[at + 4] = (sums[at + 4] as number) + 65025 * n;
      sums[at + 5] = (sums[at + 5] as number) + 65025 * n;
      sums[at + 6] = (sums[at + 6] as number) + 65025 * n;
      sums[at + 7] = (sums[at + 7] as number) + n;
    }
  }

  /**
   * Adds row `y` where both pages are the same in every row its blur reads, so their blurred rows are
   * the same (`a`) and so is the unblurred one (`raw` from `rawAt` on): the candidate's sums are the
   * reference's, added in the same order as addRow adds them, and nothing differs.
   */
  addSameRow(a: Float64Array, raw: Uint8Array, rawAt: number, y: number): void {
    const sums = this.#sums;
    const columnEnds = this.#columnEnds;
    const { rowOf, columns } = this.grid;
    const rowBase = (rowOf[y] as number) * columns;
    let x = 0;
    for (let column = 0; column < columns; column += 1) {
      const end = columnEnds[column] as number;
      let n = 0;
      let sum = 0;
      let squares = 0;
      let paper = 0;
      let marks = 0;
      for (; x < end; x += 1) {
        const p = a[x] as number;
        n += 1;
        sum += p;
        squares += p * p;
        const rawP = raw[rawAt + x] as number;
        if (rawP >= PAPER_FROM) paper += 1;
        if (rawP < MARK_BELOW) marks += 1;
      }
      const at = (rowBase + column) * SUMS;
      sums[at] = (sums[at] as number) + n;
      sums[at + 2] = (sums[at + 2] as number) + sum;
      sums[at + 3] = (sums[at + 3] as number) + sum;
      sums[at + 4] = (sums[at + 4] as number) + squares;
      sums[at + 5] = (sums[at + 5] as number) + squares;
      sums[at + 6] = (sums[at + 6] as number) + squares;
      sums[at + 7] = (sums[at + 7] as number) + paper;
      sums[at + 9] = (sums[at + 9] as number) + marks;
      sums[at + 10] = (sums[at + 10] as number) + marks;
    }
  }

  /** Every tile's sums, row by row. */
  tiles(): TileSums[] {
    const sums = this.#sums;
    return Array.from({ length: this.grid.columns * this.grid.rows }, (_, tile) => {
      const at = tile * SUMS;
      const sum = (k: number) => sums[at + k] as number;
      return {
        pixels: sum(0),
        squaredError: sum(1),
        reference: sum(2),
        candidate: sum(3),
        referenceSquares: sum(4),
        candidateSquares: sum(5),
        products: sum(6),
        paperPixels: sum(7),
        paperSquaredError: sum(8),
        referenceMarks: sum(9),
        candidateMarks: sum(10),
      };
    });
  }
}

/** How alike a row is on both pages, least first. */
const [DIFFERENT_ROW, SAME_ROW, WHITE_ROW] = [0, 1, 2];

/**
 * Per row of a band of both pages: whether it differs, is the same, or is the same and white. Compared
 * as bytes (memcmp), far cheaper than the arithmetic they spare: of the first page of Chrome's and
 * Word's prints against Ghostscript's /ebook rewrite (poppler, 40 dpi), 98% of the rows' blurs read
 * only rows alike on both pages, 82-96% white ones; of pdflatex's two columns 61%, 41% white.
 */
function rowKinds(a: Buffer, b: Buffer, width: number, rows: number, white: Buffer): Uint8Array {
  const kinds = new Uint8Array(rows);
  for (let row = 0; row < rows; row += 1) {
    const [start, end] = [row * width, (row + 1) * width];
    if (a.compare(b, start, end, start, end) !== 0) kinds[row] = DIFFERENT_ROW;
    else kinds[row] = a.compare(white, 0, width, start, end) === 0 ? WHITE_ROW : SAME_ROW;
  }
  return kinds;
}

export interface PageComparison {
  /** PSNR of the candidate against the reference, both blurred; 0 when their sizes differ (the page changed size). */
  psnrDb: number;
  /** Marks (pixels darker than MARK_BELOW, unblurred) on each page. */
  marks: { reference: number; candidate: number };
  /** The page's tiles (`tileGrid`), row by row; none when the sizes differ. */
  tiles: TileSums[];
  /** Tile columns of the grid, to tell where a tile is. */
  tileColumns: number;
}

/** Tiles of about this many pixels a side unless the caller says otherwise. */
const DEFAULT_TILE_PX = 40;

export async function comparePgmFiles(
  referencePath: string,
  candidatePath: string,
  tilePx = DEFAULT_TILE_PX,
): Promise<PageComparison> {
  const [reference, candidate] = [await open(referencePath), await open(candidatePath)];
  try {
    const [a, b] = [await readHeader(reference, referencePath), await readHeader(candidate, candidatePath)];
    if (a.width !== b.width || a.height !== b.height)
      return { psnrDb: 0, marks: { reference: 0, candidate: 0 }, tiles: [], tileColumns: 0 };
    const { width, height } = a;
    const bandRows = Math.max(1, Math.floor(CHUNK_BYTES / width));
    const bandBytes = Math.min(height, bandRows + 2) * width;
    const [chunkA, chunkB] = [Buffer.alloc(bandBytes), Buffer.alloc(bandBytes)];
    // A render in colour is read into a band of its own first, then turned grey into its chunk.
    const colourBand = (header: PgmHeader) =>
      header.channels === 3 ? Buffer.alloc(bandBytes * 3) : undefined;
    const [colourA, colourB] = [colourBand(a), colourBand(b)];
    const readBand = async (
      file: FileHandle,
      header: PgmHeader,
      chunk: Buffer,
      top: number,
      length: number,
      colour: Buffer | undefined,
    ) => {
      if (colour === undefined) {
        await file.read(chunk, 0, length, header.dataOffset + top * width);
        return;
      }
      await file.read(colour, 0, length * 3, header.dataOffset + top * width * 3);
      greyOfRgb(colour, chunk, length);
    };
    const tiles = new TileAccumulator(tileGrid(width, height, tilePx));
    const [columns, blurredA, blurredB] = [
      new Float64Array(width),
      new Float64Array(width),
      new Float64Array(width),
    ];
    const white = Buffer.alloc(width, 255);
    for (let first = 0; first < height; first += bandRows) {
      const last = Math.min(height, first + bandRows);
      // One row of context on each side, where the page has one.
      const [top, bottom] = [Math.max(0, first - 1), Math.min(height, last + 1)];
      const length = (bottom - top) * width;
      await Promise.all([
        readBand(reference, a, chunkA, top, length, colourA),
        readBand(candidate, b, chunkB, top, length, colourB),
      ]);
      const rows = bottom - top;
      const kinds = rowKinds(chunkA, chunkB, width, rows, white);
      for (let y = first - top; y < last - top; y += 1) {
        // The kind of the least alike of the rows the blur of row y reads (blurRow clips them at the
        // band's edges).
        let kind = WHITE_ROW;
        for (let row = y > 0 ? y - 1 : 0; row <= y + 1 && row < rows; row += 1)
          kind = Math.min(kind, kinds[row] as number);
        if (kind === WHITE_ROW) {
          tiles.addWhiteRow(top + y);
        } else if (kind === SAME_ROW) {
          blurRow(chunkA, width, rows, y, columns, blurredA);
          tiles.addSameRow(blurredA, chunkA, y * width, top + y);
        } else {
          blurRow(chunkA, width, rows, y, columns, blurredA);
          blurRow(chunkB, width, rows, y, columns, blurredB);
          tiles.addRow(blurredA, blurredB, chunkA, chunkB, y * width, top + y);
        }
      }
    }
    const scores = tiles.tiles();
    const total = (key: 'squaredError' | 'referenceMarks' | 'candidateMarks') =>
      scores.reduce((sum, tile) => sum + tile[key], 0);
    return {
      psnrDb: psnrOf(total('squaredError'), width * height),
      marks: { reference: total('referenceMarks'), candidate: total('candidateMarks') },
      tiles: scores,
      tileColumns: tiles.grid.columns,
    };
  } finally {
    await reference.close();
    await candidate.close();
  }
}
