// An independent judge of what a PDF shows ("no page, image or searchable text lost"), built
// on poppler, which the server does not use: pages rendered in greyscale at 40 dpi and compared by PSNR
// and by the marks they keep, the words pdftotext extracts, and the images pdfimages lists. Machines
// without poppler-utils skip the suites that need it (see `poppler`).
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const TOOL_TIMEOUT_MS = 60_000;

/**
 * Where a good rewrite and a lost page part company, all in this one place.
 * - psnrDb: legitimate compressions measured at 29 dB or more per page at 40 dpi and blanked
 *   outputs at 0-2.5 dB. Pages are compared after a 3x3 box blur: a dense 300 dpi text scan that
 *   Ghostscript re-encodes losslessly lands a fraction of a pixel away and scored 18 dB unblurred, 26
 *   blurred (measured on the corpus's Epson scan), while blank pages stay under 7.
 * - wordsKept: legitimate outputs kept at least 96% of the input's distinct words.
 * - marksKept: a page of a few marks scores well by PSNR even when they vanish (a lone glyph that
 *   Ghostscript's legacy interpreter dropped scored 45 dB), so a page must also keep half of its marks,
 *   pixels darker than MARK; legitimate outputs kept 0.93 to 1.41 of them, lost pages 0. Judged only on
 *   pages with at least MIN_MARKS, below which anti-aliasing alone moves the count.
 */
export const CONTENT_FLOORS = { psnrDb: 20, wordsKept: 0.95, marksKept: 0.5 } as const;

const RENDER_DPI = 40;
/** A pixel darker than this is a mark (print, not paper or the light noise of a scan). */
const MARK = 200;
const MIN_MARKS = 16;

export const poppler = await (async () => {
  try {
    await run('pdftoppm', ['-v'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
})();

/** A greyscale raster, one byte per pixel (0 black, 255 white). */
export interface Raster {
  width: number;
  height: number;
  pixels: Uint8Array;
}

export interface PageContent {
  raster: Raster;
  /** Distinct words pdftotext finds on the page (NFKC, lower case). */
  words: Set<string>;
  /** Images drawn on the page (pdfimages -list rows of type image or stencil). */
  images: number;
}

export interface Rendition {
  pageCount: number;
  /** The pages asked for, by 1-based number. */
  pages: Map<number, PageContent>;
}

/** Poppler cannot read the file; `output` says why. */
export class Unreadable extends Error {
  override name = 'Unreadable';
}

/** First, last and an even spread between: at most `max` 1-based page numbers. */
export function samplePages(pageCount: number, max = 5): number[] {
  if (pageCount <= max) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const picked = new Set<number>();
  for (let i = 0; i < max; i++) picked.add(1 + Math.round((i * (pageCount - 1)) / (max - 1)));
  return [...picked].sort((a, b) => a - b);
}

function parsePgm(bytes: Buffer): Raster {
  // pdftoppm writes "P5\n<width> <height>\n255\n" and then the pixels.
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!header?.[1] || !header[2]) throw new Error('pdftoppm wrote something other than a binary PGM');
  const width = Number(header[1]);
  const height = Number(header[2]);
  const start = header[0].length;
  return { width, height, pixels: bytes.subarray(start, start + width * height) };
}

function wordsOf(text: string): Set<string> {
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words);
}

async function pageCountOf(path: string): Promise<number> {
  try {
    const { stdout } = await run('pdfinfo', [path], { timeout: TOOL_TIMEOUT_MS });
    const pages = /^Pages:\s+(\d+)/m.exec(stdout)?.[1];
    if (pages === undefined || Number(pages) < 1)
      throw new Unreadable(`pdfinfo reports no pages:\n${stdout}`);
    return Number(pages);
  } catch (error) {
    if (error instanceof Unreadable) throw error;
    const failed = error as { stderr?: string; message: string };
    throw new Unreadable(`pdfinfo cannot read it: ${failed.stderr ?? failed.message}`);
  }
}

async function render(path: string, page: number, dir: string): Promise<Raster> {
  const prefix = join(dir, `page-${page}`);
  const args = ['-gray', '-r', String(RENDER_DPI), '-f', String(page), '-l', String(page), path, prefix];
  try {
    await run('pdftoppm', args, { timeout: TOOL_TIMEOUT_MS });
  } catch (error) {
    throw new Unreadable(`pdftoppm cannot render page ${page}: ${(error as Error).message}`);
  }
  const name = (await readdir(dir)).find((file) => file.startsWith(`page-${page}-`));
  if (name === undefined) throw new Unreadable(`pdftoppm rendered nothing for page ${page}`);
  return parsePgm(await readFile(join(dir, name)));
}

async function imagesPerPage(path: string): Promise<Map<number, number>> {
  const { stdout } = await run('pdfimages', ['-list', path], { timeout: TOOL_TIMEOUT_MS });
  const counts = new Map<number, number>();
  // Columns: page num type width height ...; the first two lines are headings.
  for (const line of stdout.split('\n').slice(2)) {
    const [page, , type] = line.trim().split(/\s+/);
    if (type === 'image' || type === 'stencil') counts.set(Number(page), (counts.get(Number(page)) ?? 0) + 1);
  }
  return counts;
}

async function textPerPage(path: string): Promise<string[]> {
  const { stdout } = await run('pdftotext', ['-enc', 'UTF-8', path, '-'], {
    timeout: TOOL_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.split('\f');
}

/** Reads `pages` of the PDF the way a viewer shows them. Throws Unreadable when poppler cannot. */
/** Page count as poppler reads it (pdfinfo); throws Unreadable when poppler cannot read the file. */
export async function popplerPageCount(pdf: Uint8Array): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-pages-'));
  try {
    const path = join(dir, 'document.pdf');
    await writeFile(path, pdf);
    return await pageCountOf(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function readPdf(pdf: Uint8Array, pages: (pageCount: number) => number[]): Promise<Rendition> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-content-'));
  try {
    const path = join(dir, 'document.pdf');
    await writeFile(path, pdf);
    const pageCount = await pageCountOf(path);
    const [texts, images] = await Promise.all([textPerPage(path), imagesPerPage(path)]);
    const rendition: Rendition = { pageCount, pages: new Map() };
    for (const page of pages(pageCount)) {
      rendition.pages.set(page, {
        raster: await render(path, page, dir),
        words: wordsOf(texts[page - 1] ?? ''),
        images: images.get(page) ?? 0,
      });
    }
    return rendition;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Nearest-neighbour resize, so pages whose sizes round differently can be compared pixel by pixel. */
function resized(raster: Raster, width: number, height: number): Raster {
  if (raster.width === width && raster.height === height) return raster;
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const sourceRow = Math.min(raster.height - 1, Math.floor((y * raster.height) / height)) * raster.width;
    for (let x = 0; x < width; x++) {
      pixels[y * width + x] =
        raster.pixels[sourceRow + Math.min(raster.width - 1, Math.floor((x * raster.width) / width))] ?? 255;
    }
  }
  return { width, height, pixels };
}

/** Each pixel the mean of its 3x3 neighbourhood (clipped at the edges). */
function blurred(raster: Raster): Float64Array {
  const { width, height, pixels } = raster;
  const out = new Float64Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy < 0 || yy >= height || xx < 0 || xx >= width) continue;
          sum += pixels[yy * width + xx] ?? 255;
          count++;
        }
      }
      out[y * width + x] = sum / count;
    }
  }
  return out;
}

/** PSNR in dB of `output` against `input`, both blurred (see CONTENT_FLOORS); Infinity when equal. */
export function psnr(input: Raster, output: Raster): number {
  const a = blurred(input);
  const b = blurred(resized(output, input.width, input.height));
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const difference = (a[i] ?? 0) - (b[i] ?? 0);
    sum += difference * difference;
  }
  const mse = sum / a.length;
  return mse === 0 ? Number.POSITIVE_INFINITY : 10 * Math.log10((255 * 255) / mse);
}

export function marks(raster: Raster): number {
  let count = 0;
  for (const pixel of raster.pixels) if (pixel < MARK) count++;
  return count;
}

export interface ContentVerdict {
  /** Per compared page pair. */
  pages: {
    input: number;
    output: number;
    psnr: number;
    marksIn: number;
    marksOut: number;
    imagesIn: number;
    imagesOut: number;
  }[];
  /** Share of the compared input pages' distinct words found on the output pages (1 when none). */
  wordsKept: number;
  /** What fell below a floor or went missing, in words a person can act on; empty when all is kept. */
  losses: string[];
}

/**
 * Compares input pages with the output pages that should show them (`pairs` of 1-based numbers), against
 * CONTENT_FLOORS: every page's PSNR and marks, the words of all the pages together, and each page's image
 * count (an output page may hold more images than its input, never fewer).
 */
export function compareContent(
  input: Rendition,
  output: Rendition,
  pairs: readonly [number, number][],
): ContentVerdict {
  const verdict: ContentVerdict = { pages: [], wordsKept: 1, losses: [] };
  const wordsIn = new Set<string>();
  const wordsOut = new Set<string>();
  for (const [from, to] of pairs) {
    const a = input.pages.get(from);
    const b = output.pages.get(to);
    if (!a || !b) throw new Error(`page ${from} -> ${to} was not read`);
    const score = psnr(a.raster, b.raster);
    const marksIn = marks(a.raster);
    const marksOut = marks(b.raster);
    verdict.pages.push({
      input: from,
      output: to,
      psnr: score,
      marksIn,
      marksOut,
      imagesIn: a.images,
      imagesOut: b.images,
    });
    if (score < CONTENT_FLOORS.psnrDb) {
      verdict.losses.push(`page ${from} -> ${to}: ${score.toFixed(1)} dB < ${CONTENT_FLOORS.psnrDb} dB`);
    }
    if (marksIn >= MIN_MARKS && marksOut < marksIn * CONTENT_FLOORS.marksKept) {
      verdict.losses.push(`page ${from} -> ${to}: ${marksOut} of ${marksIn} marks kept`);
    }
    if (b.images < a.images) verdict.losses.push(`page ${from} -> ${to}: ${a.images} images -> ${b.images}`);
    for (const word of a.words) wordsIn.add(word);
    for (const word of b.words) wordsOut.add(word);
  }
  if (wordsIn.size > 0) {
    const kept = [...wordsIn].filter((word) => wordsOut.has(word));
    verdict.wordsKept = kept.length / wordsIn.size;
    if (verdict.wordsKept < CONTENT_FLOORS.wordsKept) {
      const lost = [...wordsIn].filter((word) => !wordsOut.has(word)).slice(0, 10);
      verdict.losses.push(
        `${kept.length} of ${wordsIn.size} distinct words kept (${(verdict.wordsKept * 100).toFixed(1)}% < ` +
          `${CONTENT_FLOORS.wordsKept * 100}%), lost e.g. ${lost.join(' ')}`,
      );
    }
  }
  return verdict;
}
