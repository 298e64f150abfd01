// One way of reading a document (OCRmyPDF, or native tesseract with qpdf): the second backend is a
// second implementation of this interface, and both pass the same suite (ocr-pdf-engine.test.ts).
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
