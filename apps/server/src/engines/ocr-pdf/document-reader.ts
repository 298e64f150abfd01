// One way of reading a document (OCRmyPDF, the native tesseract, tesseract.js): each engine is an
// implementation of this interface, and all pass the same suite (ocr-pdf-engine.test.ts).
import { ApiError, InternalError } from '../../errors.js';
import { ToolTimeoutError } from '../run-tool.js';
import type { EngineInfo, InputFile, WorkContext } from '../types.js';
import type { DocumentInput } from './document-input.js';
import type { OcrPdfOutput, OcrPdfPageOutcome, OcrPdfProgress, OcrPdfRequest } from './types.js';

/** A request checked and resolved: the input judged, the languages and pages known. */
export interface ReadPlan {
  input: InputFile;
  doc: DocumentInput;
  request: OcrPdfRequest;
  /** The language set, `eng+rus`, sorted. */
  codes: string;
  /** Pages to read, ascending, 1-based. */
  pages: readonly number[];
}

export interface ReadDocument {
  /** The searchable PDF, in the job's work folder. */
  path: string;
  /** One per page of the output. */
  pages: OcrPdfPageOutcome[];
  /** A read page's text (without tesseract's closing form feed); undefined for a skipped page. */
  textOf(page: number): Promise<string | undefined>;
}

export interface DocumentReader {
  readonly info: EngineInfo;
  readonly method: OcrPdfOutput['method'];
  read(plan: ReadPlan, job: WorkContext, onProgress: OcrPdfProgress): Promise<ReadDocument>;
}

/** A tool that ran out of time is ours to report (500), with the input's name. */
export function readFailure(error: unknown, plan: ReadPlan): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof ToolTimeoutError) {
    return new InternalError(`OCR of ${plan.input.label} did not finish within ${error.timeoutMs} ms`, {
      cause: error,
    });
  }
  return error;
}
