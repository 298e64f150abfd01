// tesseract.js for OCR of documents: the image OCR's own OCR processes, memory
// bound and languages, lent page by page to the document engine, so a server without native tesseract
// still has one pool of OCR processes whatever mix of images and documents arrives. Their decoder also
// writes an uploaded image as a PDF for the native engine (image-pdf.ts).
import type { Fragment, FragmentRequest, ImageCheckRequest } from '../images-pdf/image-fragment.js';
import type { ImageFormat } from './image-header.js';
import type { LanguageData, LanguageRegistry } from './language-registry.js';
import type { OcrProcess } from './ocr-process.js';
import type { PageImage } from './page-images.js';
import { ANY_WORKER, type WorkerPool } from './worker-pool.js';

export interface TesseractJsPages {
  /** tesseract.js's version, for `/healthz`. */
  readonly version: string;
  /** The languages it reads: the image OCR's (bundled, and PDN_TESSDATA_DIR's). */
  readonly registry: LanguageRegistry;
  /** Decodes an uploaded image into greyscale pages in `outDir`, as `POST /api/v1/ocr` does. */
  prepare(
    path: string,
    format: ImageFormat,
    maxPixels: number,
    outDir: string,
    signal: AbortSignal,
  ): Promise<PageImage[]>;
  /**
   * Writes an uploaded image as a PDF in `output` (image-pdf.ts: a page per image page, the image kept
   * as it came or losslessly); answers its page count. Lent to the native engine too, which has no
   * decoder of its own.
   */
  imagePdf(
    path: string,
    format: ImageFormat,
    maxPixels: number,
    output: string,
    signal: AbortSignal,
  ): Promise<number>;
  /** Writes one uploaded image's pages as PDF objects for images to PDF (image-fragment.ts). */
  imageFragment(request: FragmentRequest, signal: AbortSignal): Promise<Fragment>;
  /** Refuses damaged data that an image's fragment copies undecoded (image-fragment.ts). */
  imageCheck(request: ImageCheckRequest, signal: AbortSignal): Promise<void>;
  /**
   * Reads the page image `image` drawn at `dpi` into `outBase.pdf` (tesseract's page: text only, or with
   * the image), `outBase.txt` and, when `hocr`, `outBase.hocr`; answers the page's mean word confidence.
   * Failures are OcrJobError.
   */
  readPage(
    languages: readonly LanguageData[],
    page: { image: string; dpi: number; textOnly: boolean; hocr: boolean; outBase: string },
    signal: AbortSignal,
  ): Promise<number>;
}

export function tesseractJsPages(o: {
  version: string;
  registry: LanguageRegistry;
  processes: WorkerPool<OcrProcess>;
  /** The pool's key for a language set: the engine remembers which languages a new process loads. */
  keyOf(languages: readonly LanguageData[]): string;
}): TesseractJsPages {
  return {
    version: o.version,
    registry: o.registry,
    prepare: (path, format, maxPixels, outDir, signal) =>
      o.processes.run(ANY_WORKER, (p) => p.prepare(path, format, maxPixels, outDir), signal),
    imagePdf: (path, format, maxPixels, output, signal) =>
      o.processes.run(ANY_WORKER, (p) => p.imagePdf(path, format, maxPixels, output), signal),
    imageFragment: (request, signal) => o.processes.run(ANY_WORKER, (p) => p.imageFragment(request), signal),
    imageCheck: (request, signal) => o.processes.run(ANY_WORKER, (p) => p.imageCheck(request), signal),
    readPage: (languages, page, signal) =>
      o.processes.run(
        o.keyOf(languages),
        (p) => p.readPage(page.image, page.dpi, page.textOnly, page.hocr, page.outBase),
        signal,
      ),
  };
}
