// Whether Ghostscript's rewrite can beat the best lossless answer at all, judged from the input's
// structure before paying for the run. pdfwrite re-encodes every image it writes, and some images it
// cannot write smaller at a level's settings, so their bytes are a lower bound on its output:
// - JBIG2: pdfwrite has no JBIG2 encoder and writes such an image as CCITT Group 4, which takes more
//   bytes for the same pixels (the four JBIG2 scans of the fixtures corpus came back 1.34-2.44x their
//   qpdf rewrite at every level): counted at 1.25x;
// - JPEG at a level that passes JPEGs through (`low`): it stays as it is; one stored under a Flate
//   layer loses the layer, so it counts at the JPEG's own bytes, up to its end marker (jpeg-end.ts),
//   where pdfwrite stops copying. (One stored plain counts at its stored bytes: bytes a writer appended
//   after its end marker are counted and not written. No real file seen has them.)
// - CCITT Group 4 at `low`: already pdfwrite's densest 1-bit encoding.
// Each only where every drawing of the image is known to be at a resolution pdfwrite does not
// downsample at the level (image-readings.ts): a downsampled image can shrink. An image drawn finer
// anywhere, or one no page draws, is not counted.
// On top of that comes what pdfwrite writes for any document: a blank page came back 1993 bytes after
// qpdf's pass (gs 10.00, every preset, either interpreter). Where that bound already reaches the best
// lossless size (qpdf's rewrite, or the input), the run is skipped: half the real files of the bench
// ended as qpdf's rewrite after Ghostscript's run, its output not smaller.
// Counted once per distinct stored image (same filters, length and pixels: images drawn on several
// pages, or two alike, count once, which can only make the bound lower). Inline images, fonts and
// content streams are not counted: the bound only errs low, toward running Ghostscript.
import type { CompressionLevel } from '../types.js';
import { filterNames, type PdfStructure, type StoredStream } from './content-check/pdf-structure.js';
import { type ImageReadings, isJpegUnderFlate } from './image-readings.js';
import { downsampleThreshold, GHOSTSCRIPT_PRESETS } from './presets.js';

/** Bytes of pdfwrite's smallest document, a blank page, after qpdf's pass (measured 1993), rounded down. */
export const PDFWRITE_FLOOR_BYTES = 1900;

/** CCITT Group 4 bytes per JBIG2 byte for the same 1-bit pixels, at least (measured: 1.34 and more). */
export const JBIG2_AS_CCITT = 1.25;

/**
 * Readings under which every image is drawn at a kept resolution and every JPEG under Flate is
 * boundless: the highest the floor could be once the images are read.
 */
export const EVERY_IMAGE_KEPT: ImageReadings = { ppi: () => 0, jpegBytes: () => Number.POSITIVE_INFINITY };

/** Readings under which no image counts: the lowest the floor could be, the blank page. */
export const NO_IMAGE_KEPT: ImageReadings = { ppi: () => undefined, jpegBytes: () => undefined };

/**
 * Whether pdfwrite at `level` keeps an image drawn at `ppi` at its resolution: at or below the level's
 * `dpi`, or below the threshold over it past which pdfwrite downsamples (`pdfimages` prints whole ppi,
 * so an image printed at the threshold could be just past it).
 */
function keptWhole(ppi: number | undefined, dpi: number, level: CompressionLevel): boolean {
  const threshold = downsampleThreshold(GHOSTSCRIPT_PRESETS[level]);
  return ppi !== undefined && (ppi <= dpi || ppi < threshold * dpi);
}

/** The fewest bytes pdfwrite at `level` writes `image` in; 0 where it could write it in fewer than any. */
function keptBytes(
  image: StoredStream & { length: number },
  level: CompressionLevel,
  read: ImageReadings,
): number {
  const preset = GHOSTSCRIPT_PRESETS[level];
  const passesJpegs = preset.jpegImages === 'passThrough';
  const ppi = read.ppi(image.object);
  const filters = filterNames(image);
  if (filters.length === 1 && filters[0] === '/JBIG2Decode')
    return keptWhole(ppi, preset.monoDpi, level) ? JBIG2_AS_CCITT * image.length : 0;
  if (!passesJpegs) return 0;
  if (filters.length === 1 && filters[0] === '/DCTDecode')
    return keptWhole(ppi, preset.imageDpi, level) ? image.length : 0;
  if (isJpegUnderFlate(filters))
    return keptWhole(ppi, preset.imageDpi, level) ? (read.jpegBytes(image.object) ?? 0) : 0;
  if (
    filters.length === 1 &&
    filters[0] === '/CCITTFaxDecode' &&
    image.ccittK !== undefined &&
    image.ccittK < 0
  )
    return keptWhole(ppi, preset.monoDpi, level) ? image.length : 0;
  return 0;
}

/** A lower bound on the size of Ghostscript's output at `level` (after qpdf's pass), in bytes. */
export function ghostscriptFloorBytes(
  structure: PdfStructure,
  level: CompressionLevel,
  read: ImageReadings,
): number {
  const counted = new Set<string>();
  let bytes = PDFWRITE_FLOOR_BYTES;
  for (const stream of structure.streams.flat()) {
    const { length } = stream;
    if (stream.pixels === undefined || length === undefined) continue;
    const key = `${stream.filters} ${length} ${stream.pixels}`;
    if (counted.has(key)) continue;
    const kept = keptBytes({ ...stream, length }, level, read);
    if (kept === 0) continue;
    counted.add(key);
    bytes += kept;
  }
  return Math.floor(bytes);
}
