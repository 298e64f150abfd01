// The contract between the engines (files in, files out; no HTTP) and the code that wires and serves
// them. Routes in src/http/routes/ call exactly these methods; src/main.ts builds them at start-up.
import type { CompressionLevel, CompressMethod, EngineInfo, Language, OcrWord } from '@pdn/api-types';
import type { HtmlPdfEngine } from './html-pdf/types.js';
import type { ImagesPdfEngine } from './images-pdf/types.js';
import type { TesseractJsPages } from './ocr/tesseract-js-pages.js';
import type { OcrPdfEngine } from './ocr-pdf/types.js';
import type { OfficePdfEngine } from './office-pdf/types.js';
import type { PageBudget } from './page-budget.js';
import type { PdfImagesEngine } from './pdf-images/types.js';

export type { CompressionLevel, CompressMethod, EngineInfo, Language, PageBudget };

/** Operators' log, as much as engines need of it (tool detection, recycling, slow jobs). */
export interface EngineLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Tools' own diagnostics; a log without it, as some tests pass, drops them. */
  debug?(message: string, fields?: Record<string, unknown>): void;
}

/** An uploaded file already on disk, with the name a person would recognise in an error message. */
export interface InputFile {
  path: string;
  /** e.g. `"report.pdf"` or, for merge, `"file 3 (report.pdf)"`. */
  label: string;
}

/**
 * Folders in this process's work area (storage/work-dirs.ts) for what an engine keeps between calls (a
 * warm LibreOffice's or Chromium's profile): removed by the engine when done, and by the next process
 * of the deployment when this one was killed before it could.
 */
export interface WorkFolders {
  create(prefix: string): Promise<string>;
  remove(dir: string): Promise<void>;
}

/** Every engine call runs inside a per-request temp folder that the caller removes afterwards. */
export interface WorkContext {
  workDir: string;
  /** Aborted when the client goes away: the engine kills its tools and stops. */
  signal: AbortSignal;
  /** The request's log (its lines carry the request id), for what an engine decided on the way, e.g.
   * a compression output refused by the content check. Absent in engine unit tests. */
  log?: EngineLog | undefined;
  /** Told how far the work is, in the engine's own units (pages for OCR of documents), when it knows. */
  progress?: ((done: number, total: number) => void) | undefined;
  /** The pages a compression or OCR of documents may read for this request (its caller's plan's). */
  pagesRead?: PageBudget | undefined;
  /** A job's turns at its slot, for work done in units (pages); absent outside jobs. */
  turns?: Turns | undefined;
}

/**
 * How long work shares its slot: it keeps each finished unit's files in `keptDir()` (where it also finds
 * the units of earlier turns) and calls `between()` after each; that returns at once, or throws
 * (jobs' SlotHandedOn) when the slot goes to another user's job, the kept files saved for the next turn.
 */
export interface Turns {
  /** The folder, fetched on the first ask only: most jobs never take turns, and fetch nothing. */
  keptDir(): Promise<string>;
  between(): Promise<void>;
}

export interface PdfOutput {
  path: string;
  pageCount: number;
  size: number;
}

export interface SplitOutput extends PdfOutput {
  /** The range as normalised text: `"3-5"` or `"7"`. */
  pages: string;
}

/** Merge and split: qpdf when installed, pdf-lib in worker threads otherwise. */
export interface PdfEngine {
  readonly info: EngineInfo;
  /** Joins `inputs` in order into one PDF inside `job.workDir`; more pages than `budget` is refused. */
  merge(inputs: readonly InputFile[], job: WorkContext, budget: PageBudget): Promise<PdfOutput>;
  /** `ranges` is the raw `ranges` form field; invalid ranges, or more pages than `budget`, are `InvalidInputError`. */
  split(input: InputFile, ranges: string, job: WorkContext, budget: PageBudget): Promise<SplitOutput[]>;
}

export interface CompressOutput extends PdfOutput {
  method: CompressMethod;
}

/** Compress: Ghostscript + qpdf when installed, pdf-lib otherwise. */
export interface CompressEngine {
  readonly info: EngineInfo;
  compress(input: InputFile, level: CompressionLevel, job: WorkContext): Promise<CompressOutput>;
  /** Ends the processes it keeps ready (server shutdown). */
  close(): Promise<void>;
}

export interface OcrOutput {
  text: string;
  /** Mean word confidence, 0-100. */
  confidence: number;
  /** Every word with its page, box and confidence (openapi.yaml OcrWord), answered with `detail=words`. */
  words: OcrWord[];
  language: string;
}

/** OCR: tesseract.js worker pools, or the native tesseract binary when installed. */
export interface OcrEngine {
  readonly info: EngineInfo;
  languages(): readonly Language[];
  /** `language` is the raw form field (`"eng"`, `"eng+deu"`); unknown codes are `InvalidInputError`. */
  recognize(image: InputFile, language: string, job: WorkContext): Promise<OcrOutput>;
  /** Its tesseract.js processes, lent a page at a time to OCR of documents. */
  readonly pages: TesseractJsPages;
  /** Terminates pooled workers (server shutdown, tests). */
  close(): Promise<void>;
}

/** Engines throw src/errors.ts errors: `InvalidInputError` for a bad file, `InternalError` for a
 * tool that failed on a file that looked good. Everything else they throw is a bug (a 500). */
export interface Engines {
  pdf: PdfEngine;
  compress: CompressEngine;
  ocr: OcrEngine;
  /** OCR of documents: engines/ocr-pdf/. */
  ocrPdf: OcrPdfEngine;
  /** Images to PDF: engines/images-pdf/. */
  imagesPdf: ImagesPdfEngine;
  /** PDF to images: engines/pdf-images/. */
  pdfImages: PdfImagesEngine;
  /** Office to PDF: engines/office-pdf/. */
  officePdf: OfficePdfEngine;
  /** HTML to PDF: engines/html-pdf/. */
  htmlPdf: HtmlPdfEngine;
}
