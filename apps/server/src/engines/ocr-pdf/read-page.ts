// One page of a PDF read as its own unit of work, whichever tesseract reads it (native-
// recogniser.ts, tesseract-js-recogniser.ts): drawn by pdftoppm at its images' resolution
// (raster-resolution.ts), turned upright when asked (orientation.ts, where the recogniser has OSD), and read
// into a text-only PDF page (`textonly_pdf`) the reader lays over the original, so the page's own images
// are never re-encoded; under `force`, tesseract's full page (the raster and its text) replaces it.
// `deskew`: the tilt of the lines tesseract found (skew.ts) and, past a tenth of a degree, the page's
// content turned straight (straighten-page.ts, images untouched), drawn and read again. `redo`: a page
// with text loses its invisible text (an earlier OCR layer) and is read as drawn without any text
// (strip-text.ts), so its visible text is kept and not read twice. The raster is deleted as soon as the
// page is read: disk and memory stay one page per running unit, whatever the page count.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import { runPdfLibTask } from '../pdf/run-pdf-lib-task.js';
import { qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';
import type { ToolInfo } from '../tools.js';
import { correctedRotation } from './orientation.js';
import { type PageFactTools, readPageFacts } from './page-facts.js';
import { type PageToolJob, type PageToolLimits, pageName, runPageTool } from './page-tool.js';
import { rasterDpi } from './raster-resolution.js';
import { STRAIGHT_DEGREES, skewDegrees } from './skew.js';
import type { OcrPdfMode } from './types.js';

/** poppler-utils: the page's facts and its raster. */
export interface PopplerTools extends PageFactTools {
  pdftoppm: ToolInfo;
}

export interface PageJob extends PageToolJob {
  pdf: string;
  mode: OcrPdfMode;
  rotate: boolean;
  deskew: boolean;
  /** The language set, `eng+rus`. */
  codes: string;
}

/** A tesseract that reads a page's raster: the native binary or tesseract.js. */
export interface PageRecogniser {
  /**
   * Reads `raster`, drawn at `dpi`, into `<base>.pdf` (text only, or the raster with its text), `<base>.txt`
   * and, when `hocr`, `<base>.hocr` (the lines' baselines, for the tilt); answers the mean word confidence.
   */
  recognise(
    raster: string,
    base: string,
    read: { dpi: number; textOnly: boolean; hocr: boolean },
    job: PageJob,
  ): Promise<number>;
  /** tesseract's OSD report of `raster`, undefined for a page too empty to tell; absent without OSD data. */
  orientation?(raster: string, job: PageJob): Promise<string | undefined>;
}

export interface PageOptions extends PageToolLimits {
  poppler: PopplerTools;
  /** Takes a page out alone (`redo`, `deskew`, `rotate`); those options are refused without it. */
  qpdf: ToolInfo | undefined;
  recogniser: PageRecogniser;
  maxImagePixels: number;
}

export type PageRead =
  | { status: 'skipped' }
  | {
      status: 'ocred';
      confidence: number;
      /** tesseract's one-page PDF: text only, or under `force` the raster with its text. */
      layer: string;
      textPath: string;
      /** The page's own is replaced by `layer` (`force`), rather than overlaid. */
      replaces: boolean;
      /** A one-page PDF standing in for the page under its layer: turned straight (`deskew`,
       * straighten-page.ts) or without its earlier invisible text (`redo`, strip-text.ts). */
      replacement?: string;
      /** The page's new /Rotate when it was turned upright. */
      rotation?: number;
    };

/**
 * Draws page `page` of `pdf` as a greyscale PGM at `dpi`, /Rotate applied. PGM, not PNG: pdftoppm 22.12
 * spends nine tenths of a 200 dpi page's time compressing a PNG (0.58 s of CPU against 0.06 s for the
 * PGM, measured on the bench's scans) and writes it in RGB despite `-gray`; the raster lives only until
 * tesseract has read it, which reads PGM natively (the resolution is given to it apart, `--dpi`).
 */
async function draw(pdf: string, page: number, dpi: number, job: PageJob, o: PageOptions) {
  const prefix = join(job.folder, 'raster');
  const range = ['-f', String(page), '-l', String(page)];
  await runPageTool(
    o.poppler.pdftoppm,
    [...range, '-r', String(dpi), '-gray', '-singlefile', pdf, prefix],
    job,
    o,
  );
  return `${prefix}.pgm`;
}

/** Page `page` of `pdf` alone in `output`, turned to `rotation` when given. */
async function onePage(
  pdf: string,
  page: number,
  output: string,
  job: PageJob,
  o: PageOptions,
  rotation?: number,
) {
  if (o.qpdf === undefined) throw new InternalError('a page was to be taken out alone without qpdf');
  const qpdfRun = { qpdf: o.qpdf, cwd: job.folder, timeoutMs: o.timeoutMs, signal: job.signal };
  const result = await runQpdf(
    [
      '--empty',
      '--pages',
      pdf,
      String(page),
      '--',
      ...(rotation === undefined ? [] : [`--rotate=${rotation}`]),
      output,
    ],
    qpdfRun,
  );
  if (!qpdfSucceeded(result))
    throw new InternalError(
      `qpdf exited with code ${result.exitCode} on page ${job.page}: ${result.stderr.trim()}`,
    );
  return output;
}

/** `redo`: the page without its invisible text (kept under the new layer) and without any (to draw). */
async function withoutOldLayer(job: PageJob, o: PageOptions) {
  const original = await onePage(job.pdf, job.page, join(job.folder, 'original.pdf'), job, o);
  const kept = join(job.folder, 'kept.pdf');
  const textless = join(job.folder, 'textless.pdf');
  const run = { timeoutMs: o.timeoutMs, signal: job.signal };
  const name = pageName(job);
  await runPdfLibTask('stripText', { pdf: original, which: 'invisible', output: kept, name }, run);
  await runPdfLibTask('stripText', { pdf: original, which: 'all', output: textless, name }, run);
  return { kept, textless };
}

export async function readPage(job: PageJob, o: PageOptions): Promise<PageRead> {
  const facts = await readPageFacts(job.pdf, job.page, o.poppler, {
    cwd: job.folder,
    timeoutMs: o.timeoutMs,
    signal: job.signal,
  });
  if (facts.largestImagePixels > o.maxImagePixels) {
    throw new InvalidInputError(
      `Page ${job.page} of ${job.label} holds an image of ${facts.largestImagePixels.toLocaleString('en-US')} ` +
        `pixels; this server reads images of at most ${o.maxImagePixels.toLocaleString('en-US')} pixels`,
    );
  }
  if (job.mode === 'skip' && facts.hasText) return { status: 'skipped' };
  const dpi = rasterDpi(facts.width, facts.height, facts.imagePpi, o.maxImagePixels);
  // The page as it will stand under its new layer, and as tesseract sees it: under `redo`, a page with
  // text loses its invisible text, and is drawn without any (its visible text is not read twice).
  let page = job.mode === 'redo' && facts.hasText ? await withoutOldLayer(job, o) : undefined;
  const drawn = page?.textless ?? job.pdf;
  let raster = await draw(drawn, page === undefined ? job.page : 1, dpi, job, o);
  let rotation: number | undefined;
  if (job.rotate && o.recogniser.orientation !== undefined) {
    const osd = await o.recogniser.orientation(raster, job);
    rotation = osd === undefined ? undefined : correctedRotation(osd, facts.rotation);
    if (rotation !== undefined) {
      const upright = await onePage(
        page?.kept ?? job.pdf,
        page === undefined ? job.page : 1,
        join(job.folder, 'upright.pdf'),
        job,
        o,
        rotation,
      );
      const uprightDrawn =
        page === undefined
          ? upright
          : await onePage(drawn, 1, join(job.folder, 'upright-drawn.pdf'), job, o, rotation);
      // A page that is replaced anyway carries its new rotation.
      if (page !== undefined) page = { kept: upright, textless: uprightDrawn };
      raster = await draw(uprightDrawn, 1, dpi, job, o);
    }
  }
  const base = join(job.folder, 'page');
  const replaces = job.mode === 'force';
  const read = { dpi, textOnly: !replaces };
  let confidence = await o.recogniser.recognise(raster, base, { ...read, hocr: job.deskew }, job);
  let straightened: string | undefined;
  const tilt = job.deskew ? skewDegrees(await readFile(`${base}.hocr`, 'utf8')) : undefined;
  if (tilt !== undefined && Math.abs(tilt) >= STRAIGHT_DEGREES) {
    // `redo` with `deskew` is refused (index.ts): the page to turn is the original, upright when turned.
    straightened = join(job.folder, 'straightened.pdf');
    const upright = rotation === undefined ? undefined : join(job.folder, 'upright.pdf');
    const onePdf = upright ?? (await onePage(job.pdf, job.page, join(job.folder, 'original.pdf'), job, o));
    await runPdfLibTask(
      'straightenPage',
      { onePage: onePdf, degrees: tilt, output: straightened },
      { timeoutMs: o.timeoutMs, signal: job.signal },
    );
    await rm(raster, { force: true });
    raster = await draw(straightened, 1, dpi, job, o);
    confidence = await o.recogniser.recognise(raster, base, { ...read, hocr: false }, job);
  }
  await rm(raster, { force: true });
  // The straightened page or the page without its old layer carries its new rotation; a page replaced
  // under `force` is tesseract's own.
  const replacement = replaces ? undefined : (straightened ?? page?.kept);
  return {
    status: 'ocred',
    confidence,
    layer: `${base}.pdf`,
    textPath: `${base}.txt`,
    replaces,
    ...(replacement === undefined ? {} : { replacement }),
    ...(rotation === undefined || replaces || replacement !== undefined ? {} : { rotation }),
  };
}
