// OCRmyPDF's command line for an `ocrPdf` request (openapi.yaml), one place so the engine and the
// bench run the reference tool with the same options.
import type { OcrPdfRequest } from './types.js';

export interface OcrmypdfRun {
  request: OcrPdfRequest;
  /** The language set, `eng+rus`. */
  codes: string;
  /** Worker processes: never more than the server's job concurrency nor the pages to read. */
  jobs: number;
  /** `1-3,7` when only some pages are read. */
  pages?: string | undefined;
  /** Pixels of the largest image OCRmyPDF may decode (its decompression-bomb guard). */
  maxImagePixels: number;
  /** A tesseract config file OCRmyPDF hands to every page's tesseract run, and its temporary
   * files kept (in TMPDIR) so the engine can read what each page's run wrote. */
  tesseractConfig?: string | undefined;
  /** A plugin of ours (ocrmypdf-progress.ts: a line per page on stderr). */
  plugin?: string | undefined;
  input: string;
  output: string;
}

const MODE_FLAG = { skip: '--skip-text', redo: '--redo-ocr', force: '--force-ocr' } as const;

/** OCRmyPDF 14's arguments: the sandwich renderer (tesseract's own text-only PDF), optimisation level 1 (its default: lossless). */
export function ocrmypdfArgs(run: OcrmypdfRun): string[] {
  const { request } = run;
  return [
    '--language',
    run.codes,
    MODE_FLAG[request.mode],
    ...(request.deskew ? ['--deskew'] : []),
    ...(request.rotate ? ['--rotate-pages'] : []),
    ...(run.pages === undefined ? [] : ['--pages', run.pages]),
    '--output-type',
    request.output === 'pdfa' ? 'pdfa-2' : 'pdf',
    '--optimize',
    '1',
    '--pdf-renderer',
    'sandwich',
    '--jobs',
    String(run.jobs),
    '--max-image-mpixels',
    String(run.maxImagePixels / 1_000_000),
    ...(run.plugin === undefined ? [] : ['--plugin', run.plugin]),
    ...(run.tesseractConfig === undefined
      ? []
      : ['--tesseract-config', run.tesseractConfig, '--keep-temporary-files']),
    '--quiet',
    run.input,
    run.output,
  ];
}
