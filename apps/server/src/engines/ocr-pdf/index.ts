// Picks the OCR-of-documents engine at start-up (issue #17): OCRmyPDF when installed, else the native
// tesseract with qpdf and poppler, else none (the operation then answers 500 saying what to install);
// PDN_OCR_PDF_ENGINE=auto|ocrmypdf|tesseract to force one. Checks what both share before either runs:
// the languages (the native tesseract's, which OCRmyPDF runs too), the input, the pages.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { LanguageRegistry } from '../ocr/language-registry.js';
import { NativeTesseract } from '../ocr/native-tesseract.js';
import type { MemoryLimit } from '../run-tool.js';
import type { DetectedTools } from '../tools.js';
import type { EngineInfo, EngineLog, InputFile, WorkContext } from '../types.js';
import { readDocumentInput } from './document-input.js';
import type { DocumentReader } from './document-reader.js';
import { writeDocumentText } from './document-text.js';
import type { NativeTools } from './native-page.js';
import { nativeReader } from './native-reader.js';
import { ocrmypdfReader } from './ocrmypdf-reader.js';
import { selectPages } from './page-selection.js';
import type { OcrPdfEngine, OcrPdfOutput, OcrPdfProgress, OcrPdfRequest } from './types.js';

export type { OcrPdfEngine, OcrPdfOutput, OcrPdfRequest } from './types.js';

export interface OcrPdfEngineOptions {
  choice: 'auto' | 'ocrmypdf' | 'tesseract';
  tools: DetectedTools;
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

/** The native reader's tools, when every one is installed. */
function nativeTools(tools: DetectedTools): NativeTools | undefined {
  const { tesseract, qpdf, pdftoppm, pdftotext, pdfimages, pdfinfo } = tools;
  if (!tesseract || !qpdf || !pdftoppm || !pdftotext || !pdfimages || !pdfinfo) return undefined;
  return { tesseract, qpdf, pdftoppm, pdftotext, pdfimages, pdfinfo };
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
  if (o.choice !== 'tesseract' && o.tools.ocrmypdf !== undefined) {
    return ocrmypdfReader({
      ...common,
      ocrmypdf: o.tools.ocrmypdf,
      concurrency: o.concurrency,
      tessdataDir: o.tessdataDir,
    });
  }
  const tools = nativeTools(o.tools);
  if (o.choice !== 'ocrmypdf' && tools !== undefined) {
    return nativeReader({ ...common, tools, tessdataDir: native.tessdataDir, concurrency: o.concurrency });
  }
  return undefined;
}

/** Throws at start-up when the forced engine's tools are missing: better than failing every request. */
export async function createOcrPdfEngine(o: OcrPdfEngineOptions): Promise<OcrPdfEngine> {
  const { tesseract, prlimit } = o.tools;
  const native =
    tesseract === undefined || prlimit === undefined
      ? undefined
      : await NativeTesseract.start(tesseract, o.tessdataDir, o.log).catch(() => undefined);
  const reader =
    native === undefined || prlimit === undefined
      ? undefined
      : pickReader(o, native, { prlimit: prlimit.path, bytes: o.memoryBytes });
  if (reader === undefined && o.choice !== 'auto') {
    throw new Error(
      `PDN_OCR_PDF_ENGINE=${o.choice}, but its tools were not found on PATH: ` +
        (o.choice === 'ocrmypdf'
          ? 'ocrmypdf, tesseract and prlimit'
          : 'tesseract, qpdf, prlimit and poppler (pdftoppm, pdftotext, pdfimages, pdfinfo)'),
    );
  }
  const info = reader?.info ?? NONE;
  o.log.info(`OCR of documents: ${info.name} ${info.version}`, { choice: o.choice, engine: info.name });
  const registry = new LanguageRegistry(native?.languages ?? []);
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
          'No OCR tool for documents is installed on this server: install OCRmyPDF, or tesseract with qpdf and poppler-utils.',
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
