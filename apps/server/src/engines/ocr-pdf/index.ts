// Picks the OCR-of-documents engine at start-up: OCRmyPDF when installed, else the native
// tesseract with qpdf and poppler, else tesseract.js (the image OCR's processes), else none (the
// operation then answers 500 saying what to install); PDN_OCR_PDF_ENGINE=auto|ocrmypdf|tesseract|
// tesseract.js to force one. Checks what all share before any runs: the languages (the native
// tesseract's, which OCRmyPDF runs too; tesseract.js's own), the input, the pages.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { LanguageRegistry } from '../ocr/language-registry.js';
import type { NativeListing, NativeTesseract } from '../ocr/native-tesseract.js';
import type { TesseractJsPages } from '../ocr/tesseract-js-pages.js';
import { checkReadBudget } from '../page-budget.js';
import type { MemoryLimit } from '../run-tool.js';
import type { DetectedTools } from '../tools.js';
import type { EngineInfo, EngineLog, InputFile, WorkContext } from '../types.js';
import { chunkedReader } from './chunked-reader.js';
import { readDocumentInput } from './document-input.js';
import type { DocumentReader } from './document-reader.js';
import { writeDocumentText } from './document-text.js';
import { type NativeTools, nativeReader } from './native-reader.js';
import { ocrmypdfReader } from './ocrmypdf-reader.js';
import { pdfLibAssembler, qpdfAssembler } from './page-assembly.js';
import { selectPages } from './page-selection.js';
import type { PopplerTools } from './read-page.js';
import { tesseractJsReader } from './tesseract-js-reader.js';
import type { OcrPdfEngine, OcrPdfOutput, OcrPdfProgress, OcrPdfRequest } from './types.js';

export type { OcrPdfEngine, OcrPdfOutput, OcrPdfRequest } from './types.js';

export interface OcrPdfEngineOptions {
  choice: 'auto' | 'ocrmypdf' | 'tesseract' | 'tesseract.js';
  tools: DetectedTools;
  /** The machine's tesseract (listNativeTesseract), shared with the image OCR. */
  native: NativeListing;
  /** The image OCR's processes: engine 3's tesseract.js, and the decoder every engine writes an image
   * as a PDF with (image-document.ts); undefined leaves every engine out. */
  tesseractJs?: TesseractJsPages | undefined;
  cpuSlots: CpuSlots;
  /** The server's job concurrency: bounds OCRmyPDF's `--jobs`. */
  concurrency: number;
  tessdataDir?: string | undefined;
  maxPages: number;
  maxImagePixels: number;
  /** Memory of each tool process, in bytes (run-tool.ts limitedCommand). */
  memoryBytes: number;
  timeoutMs: number;
  log: EngineLog;
}

const NONE: EngineInfo = { name: 'none', version: '-' };

/** What each forced engine needs, for the start-up error. */
const NEEDS = {
  ocrmypdf: 'ocrmypdf, tesseract and prlimit',
  tesseract: 'tesseract, qpdf, prlimit and poppler (pdftoppm, pdftotext, pdfimages, pdfinfo)',
  'tesseract.js': 'prlimit (tesseract.js is bundled; poppler-utils lets it read PDFs, not only images)',
} as const;

/** What any engine needs, for the start-up warning when none can run. */
const NEEDS_ANY = `${NEEDS.ocrmypdf}; or ${NEEDS.tesseract}; or ${NEEDS['tesseract.js']}`;

/** The native reader's tools, when every one is installed. */
function nativeTools(tools: DetectedTools): NativeTools | undefined {
  const { tesseract, qpdf, pdftoppm, pdftotext, pdfimages, pdfinfo } = tools;
  if (!tesseract || !qpdf || !pdftoppm || !pdftotext || !pdfimages || !pdfinfo) return undefined;
  return { tesseract, qpdf, pdftoppm, pdftotext, pdfimages, pdfinfo };
}

/** poppler-utils, when every tool the tesseract.js reader runs is installed. */
function popplerTools(tools: DetectedTools): PopplerTools | undefined {
  const { pdftoppm, pdftotext, pdfimages, pdfinfo } = tools;
  if (!pdftoppm || !pdftotext || !pdfimages || !pdfinfo) return undefined;
  return { pdftoppm, pdftotext, pdfimages, pdfinfo };
}

/** Engine 3: what reads where neither OCRmyPDF nor the native tesseract is chosen. */
function tesseractJsChoice(o: OcrPdfEngineOptions, tesseractJs: TesseractJsPages, memoryLimit: MemoryLimit) {
  const reader = tesseractJsReader({
    tesseractJs,
    poppler: popplerTools(o.tools),
    qpdf: o.tools.qpdf,
    ghostscript: o.tools.ghostscript,
    assembler:
      o.tools.qpdf === undefined ? pdfLibAssembler(o.timeoutMs) : qpdfAssembler(o.tools.qpdf, o.timeoutMs),
    memoryLimit,
    maxImagePixels: o.maxImagePixels,
    timeoutMs: o.timeoutMs,
    cpuSlots: o.cpuSlots,
    concurrency: o.concurrency,
  });
  return { reader, registry: tesseractJs.registry };
}

function pickReader(
  o: OcrPdfEngineOptions,
  native: NativeTesseract,
  memoryLimit: MemoryLimit,
): DocumentReader | undefined {
  const common = {
    memoryLimit,
    maxImagePixels: o.maxImagePixels,
    timeoutMs: o.timeoutMs,
    cpuSlots: o.cpuSlots,
  };
  if (o.choice === 'tesseract.js' || o.tesseractJs === undefined) return undefined;
  const images = { ...common, images: o.tesseractJs };
  if (o.choice !== 'tesseract' && o.tools.ocrmypdf !== undefined) {
    return ocrmypdfReader({
      ...images,
      ocrmypdf: o.tools.ocrmypdf,
      concurrency: o.concurrency,
      tessdataDir: o.tessdataDir,
    });
  }
  const tools = nativeTools(o.tools);
  if (o.choice !== 'ocrmypdf' && tools !== undefined) {
    return nativeReader({
      ...images,
      tools,
      ghostscript: o.tools.ghostscript,
      tessdataDir: native.tessdataDir,
      concurrency: o.concurrency,
    });
  }
  return undefined;
}

/** Throws at start-up when the forced engine's tools are missing: better than failing every request. */
export async function createOcrPdfEngine(o: OcrPdfEngineOptions): Promise<OcrPdfEngine> {
  const { prlimit } = o.tools;
  // A tesseract that did not answer at start was reported by the image OCR; here it is just absent.
  const native =
    prlimit === undefined || o.choice === 'tesseract.js' || o.native instanceof Error ? undefined : o.native;
  const memoryLimit = prlimit === undefined ? undefined : { prlimit: prlimit.path, bytes: o.memoryBytes };
  const nativeChoice =
    native === undefined || memoryLimit === undefined ? undefined : pickReader(o, native, memoryLimit);
  const chosen =
    nativeChoice !== undefined
      ? { reader: nativeChoice, registry: new LanguageRegistry(native?.languages ?? []) }
      : o.tesseractJs !== undefined &&
          memoryLimit !== undefined &&
          (o.choice === 'auto' || o.choice === 'tesseract.js')
        ? tesseractJsChoice(o, o.tesseractJs, memoryLimit)
        : undefined;
  if (chosen === undefined && o.choice !== 'auto') {
    throw new Error(
      `PDN_OCR_PDF_ENGINE=${o.choice}, but its tools were not found on PATH: ${NEEDS[o.choice]}`,
    );
  }
  // Long documents in chunks wherever qpdf can take them apart and join them (chunked-reader.ts).
  const { qpdf } = o.tools;
  const reader =
    chosen === undefined || qpdf === undefined
      ? chosen?.reader
      : chunkedReader(chosen.reader, { qpdf, timeoutMs: o.timeoutMs, concurrency: o.concurrency });
  const info = reader?.info ?? NONE;
  const line = `OCR of documents: ${info.name} ${info.version}`;
  // Every POST /api/v1/ocr/pdf would answer 500: say so once, at start.
  if (reader === undefined) o.log.warn(line, { choice: o.choice, engine: info.name, missing: NEEDS_ANY });
  else o.log.info(line, { choice: o.choice, engine: info.name });
  const registry = chosen?.registry ?? new LanguageRegistry([]);
  return {
    info,
    async ocrPdf(
      input: InputFile,
      request: OcrPdfRequest,
      job: WorkContext,
      onProgress?: OcrPdfProgress,
    ): Promise<OcrPdfOutput> {
      if (reader === undefined) {
        throw new InternalError(
          'No OCR tool for documents is installed on this server: install OCRmyPDF, or tesseract with qpdf and poppler-utils (tesseract.js needs prlimit).',
        );
      }
      const languages = registry.select(request.language);
      if (request.mode === 'redo' && request.deskew) {
        throw new InvalidInputError(
          'mode=redo cannot be combined with deskew=true: straightening a page rasterises it, and redo keeps the page as it is.',
        );
      }
      const doc = await readDocumentInput(input, { ...o, signal: job.signal });
      const pages = selectPages(doc.kind === 'pdf' ? request.pages : undefined, doc.pageCount);
      checkReadBudget(pages.length, 'to read', job.pagesRead);
      const codes = languages.map((language) => language.code).join('+');
      const read = await reader.read({ input, doc, request, codes, pages }, job, onProgress ?? (() => {}));
      const textPath = join(job.workDir, 'document.txt');
      await writeDocumentText(textPath, doc.pageCount, read.textOf);
      return {
        path: read.path,
        size: (await stat(read.path)).size,
        textPath,
        method: reader.method,
        language: codes,
        pages: read.pages,
      };
    },
  };
}
