// One page of a PDF read by the native tools (issue #17, engine 2), its own unit of work: drawn by
// pdftoppm at its images' resolution (raster-resolution.ts), turned upright when asked (orientation.ts),
// and read by tesseract into a text-only PDF page (`textonly_pdf`) the reader lays over the original,
// so the page's own images are never re-encoded; under `force`, tesseract's full page (the raster and
// its text) replaces it. The raster is deleted as soon as tesseract is done: disk and memory stay one
// page per running unit, whatever the page count.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import { meanWordConfidence } from '../ocr/native-tesseract.js';
import { isOutOfMemory } from '../ocr/recognizer.js';
import { runQpdf } from '../pdf/run-qpdf.js';
import { type MemoryLimit, runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import { correctedRotation } from './orientation.js';
import { type PageFactTools, readPageFacts } from './page-facts.js';
import { rasterDpi } from './raster-resolution.js';
import type { OcrPdfMode } from './types.js';

/** What every tesseract run of ours writes: the page's PDF layer, its text, and the TSV its confidences come from. */
export const TESSERACT_OUTPUTS = [
  '-c',
  'tessedit_create_pdf=1',
  '-c',
  'tessedit_create_txt=1',
  '-c',
  'tessedit_create_tsv=1',
] as const;

export interface NativeTools extends PageFactTools {
  pdftoppm: ToolInfo;
  tesseract: ToolInfo;
  qpdf: ToolInfo;
}

export interface NativePageOptions {
  tools: NativeTools;
  tessdataDir: string;
  memoryLimit: MemoryLimit;
  maxImagePixels: number;
  timeoutMs: number;
}

export interface NativePageJob {
  pdf: string;
  page: number;
  /** The input's name for messages. */
  label: string;
  mode: OcrPdfMode;
  rotate: boolean;
  codes: string;
  /** A folder of this page's own, in the request's work folder. */
  folder: string;
  signal: AbortSignal;
}

export type NativePageRead =
  | { status: 'skipped' }
  | {
      status: 'ocred';
      confidence: number;
      /** tesseract's one-page PDF: text only, or under `force` the raster with its text. */
      layer: string;
      textPath: string;
      /** The page's own is replaced by `layer` (`force`), rather than overlaid. */
      replaces: boolean;
      /** The page's new /Rotate when it was turned upright. */
      rotation?: number;
    };

export class PageToolError extends Error {
  override name = 'PageToolError';
}

async function run(
  tool: ToolInfo,
  args: string[],
  job: NativePageJob,
  o: NativePageOptions,
  env?: Record<string, string>,
) {
  const result = await runTool(tool.path, args, {
    cwd: job.folder,
    timeoutMs: o.timeoutMs,
    signal: job.signal,
    memoryLimit: o.memoryLimit,
    ...(env === undefined ? {} : { env }),
  });
  if (result.exitCode === 0) return result;
  if (isOutOfMemory(result.stderr) || result.exitCode > 128) {
    throw new InvalidInputError(
      `Page ${job.page} of ${job.label} needs more memory to read than this server allows ` +
        `(${Math.round(o.memoryLimit.bytes / 2 ** 20)} MiB): send smaller pages`,
    );
  }
  throw new PageToolError(
    `${tool.path} exited with code ${result.exitCode} on page ${job.page}: ${result.stderr.trim()}`,
  );
}

/** Draws page `page` of `pdf` as a greyscale PNG at `dpi`, /Rotate applied. */
async function draw(pdf: string, page: number, dpi: number, job: NativePageJob, o: NativePageOptions) {
  const prefix = join(job.folder, 'raster');
  const range = ['-f', String(page), '-l', String(page)];
  await run(
    o.tools.pdftoppm,
    [...range, '-r', String(dpi), '-gray', '-png', '-singlefile', pdf, prefix],
    job,
    o,
  );
  return `${prefix}.png`;
}

export async function readNativePage(job: NativePageJob, o: NativePageOptions): Promise<NativePageRead> {
  const facts = await readPageFacts(job.pdf, job.page, o.tools, {
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
  let raster = await draw(job.pdf, job.page, dpi, job, o);
  let rotation: number | undefined;
  if (job.rotate) {
    const osd = await run(
      o.tools.tesseract,
      [raster, '-', '--psm', '0', '-l', 'osd', '--tessdata-dir', o.tessdataDir],
      job,
      o,
      {
        OMP_THREAD_LIMIT: '1',
      },
    ).catch(() => undefined); // A page too empty for OSD keeps its orientation, as in OCRmyPDF.
    rotation = osd === undefined ? undefined : correctedRotation(osd.stdout, facts.rotation);
    if (rotation !== undefined) {
      const upright = join(job.folder, 'upright.pdf');
      const qpdfRun = { qpdf: o.tools.qpdf, cwd: job.folder, timeoutMs: o.timeoutMs, signal: job.signal };
      await runQpdf(
        ['--empty', '--pages', job.pdf, String(job.page), '--', `--rotate=${rotation}`, upright],
        qpdfRun,
      );
      raster = await draw(upright, 1, dpi, job, o);
    }
  }
  const base = join(job.folder, 'page');
  const replaces = job.mode === 'force';
  await run(
    o.tools.tesseract,
    [
      raster,
      base,
      '-l',
      job.codes,
      '--dpi',
      String(dpi),
      '--tessdata-dir',
      o.tessdataDir,
      '-c',
      `textonly_pdf=${replaces ? 0 : 1}`,
      ...TESSERACT_OUTPUTS,
    ],
    job,
    o,
    { OMP_THREAD_LIMIT: '1' },
  );
  await rm(raster, { force: true });
  const confidence = meanWordConfidence(await readFile(`${base}.tsv`, 'utf8'));
  return {
    status: 'ocred',
    confidence,
    layer: `${base}.pdf`,
    textPath: `${base}.txt`,
    replaces,
    ...(rotation === undefined || replaces ? {} : { rotation }),
  };
}
