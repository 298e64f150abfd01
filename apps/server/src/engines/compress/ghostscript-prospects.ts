// Whether Ghostscript's rewrite can beat the best lossless answer at all, judged from the input's
// structure before paying for the run. pdfwrite re-encodes every image it writes, and some images it
// cannot write smaller at a level's settings, so their bytes are a lower bound on its output:
// - JBIG2: pdfwrite has no JBIG2 encoder and writes such an image as CCITT Group 4, which takes more
//   bytes for the same pixels (the four JBIG2 scans of the fixtures corpus came back 1.34-2.44x their
//   qpdf rewrite at every level): counted at 1.25x, where its pixels over the page are no more than the
//   level's 1-bit resolution, so it is not downsampled (a scan fills its page; an image drawn smaller
//   than the page could be, and then this errs);
// - JPEG at a level that passes JPEGs through (`low`): they stay as they are, unless drawn above 1.5x
//   the preset's 300 dpi;
// - CCITT Group 4 at `low`: already pdfwrite's densest 1-bit encoding, and `low` downsamples 1-bit
//   images only above 1.5x its 1200 dpi.
// On top of that comes what pdfwrite writes for any document: a blank page came back 1993 bytes after
// qpdf's pass (gs 10.00, every preset, either interpreter). Where that bound already reaches the best
// lossless size (qpdf's rewrite, or the input), the run is skipped: half the real files of the bench
// ended as qpdf's rewrite after Ghostscript's run, its output not smaller.
// Counted once per distinct stored image (same filters, length and pixels: images drawn on several
// pages, or two alike, count once, which can only make the bound lower). Inline images, fonts and
// content streams are not counted: the bound only errs low, toward running Ghostscript.
import type { CompressionLevel } from '../types.js';
import type { PdfStructure, StoredStream } from './content-check/pdf-structure.js';
import { GHOSTSCRIPT_PRESETS } from './presets.js';

/** Bytes of pdfwrite's smallest document, a blank page, after qpdf's pass (measured 1993), rounded down. */
export const PDFWRITE_FLOOR_BYTES = 1900;

/** CCITT Group 4 bytes per JBIG2 byte for the same 1-bit pixels, at least (measured: 1.34 and more). */
export const JBIG2_AS_CCITT = 1.25;

/** Whether the image's pixels, spread over a page whose longest side is `pageSide` points, are at most `dpi`. */
function atMost(image: StoredStream, pageSide: number | undefined, dpi: number): boolean {
  const [width = Number.NaN, height = Number.NaN] = (image.pixels ?? '').split('x').map(Number);
  return pageSide !== undefined && Math.max(width, height) <= (dpi * pageSide) / 72;
}

/**
 * The fewest bytes pdfwrite at `level` writes `image` in, as a multiple of its stored bytes: 0 where it
 * could write it smaller.
 */
function keptShare(image: StoredStream, pageSide: number | undefined, level: CompressionLevel): number {
  const preset = GHOSTSCRIPT_PRESETS[level];
  const passesJpegs = preset.jpegImages === 'passThrough';
  switch (image.filters) {
    case '"/JBIG2Decode"':
      return atMost(image, pageSide, preset.monoDpi) ? JBIG2_AS_CCITT : 0;
    case '"/DCTDecode"':
      return passesJpegs ? 1 : 0;
    case '"/CCITTFaxDecode"':
      return passesJpegs && image.ccittK !== undefined && image.ccittK < 0 ? 1 : 0;
    default:
      return 0;
  }
}

/** A lower bound on the size of Ghostscript's output at `level` (after qpdf's pass), in bytes. */
export function ghostscriptFloorBytes(structure: PdfStructure, level: CompressionLevel): number {
  const counted = new Set<string>();
  let bytes = PDFWRITE_FLOOR_BYTES;
  for (const [index, streams] of structure.streams.entries()) {
    for (const stream of streams) {
      if (stream.pixels === undefined || stream.length === undefined) continue;
      const share = keptShare(stream, structure.pageSides[index], level);
      const key = `${stream.filters} ${stream.length} ${stream.pixels}`;
      if (share === 0 || counted.has(key)) continue;
      counted.add(key);
      bytes += share * stream.length;
    }
  }
  return Math.floor(bytes);
}

/** Whether Ghostscript at `level` cannot write anything smaller than `bestBytes` (the best lossless answer). */
export function ghostscriptCannotWin(
  structure: PdfStructure,
  level: CompressionLevel,
  bestBytes: number,
): boolean {
  return ghostscriptFloorBytes(structure, level) >= bestBytes;
}
