// The OCR-of-documents engine's contract (openapi.yaml operation `ocrPdf`): a document in,
// a searchable PDF and its text out. Files in, files out: no HTTP here.
import type { OcrPdfMode, OcrPdfOutputType } from '@pdn/api-types';
import type { EngineInfo, InputFile, WorkContext } from '../types.js';

export type { OcrPdfMode, OcrPdfOutputType };

/** What the caller asked for, each field already parsed (the route owns the form fields). */
export interface OcrPdfRequest {
  /** The raw `language` field (`"eng"`, `"eng+rus"`); unknown codes are `InvalidInputError`. */
  language: string;
  mode: OcrPdfMode;
  deskew: boolean;
  rotate: boolean;
  /** The raw `pages` field (split's range syntax), or undefined for every page. */
  pages?: string | undefined;
  output: OcrPdfOutputType;
}

export interface OcrPdfPageOutcome {
  status: 'ocred' | 'skipped';
  /** Mean word confidence 0-100; null for a skipped page. */
  confidence: number | null;
}

export interface OcrPdfOutput {
  /** The searchable PDF, inside the job's work folder. */
  path: string;
  size: number;
  /** The text of every page, pages separated by a form feed, a skipped page empty. */
  textPath: string;
  method: 'ocrmypdf' | 'tesseract' | 'tesseract.js';
  /** The language set as read: sorted, each code once. */
  language: string;
  /** One per page of the output, in order. */
  pages: OcrPdfPageOutcome[];
}

/** Pages done so far out of the pages to read: the job machinery reports it as progress. */
export type OcrPdfProgress = (done: number, total: number) => void;

export interface OcrPdfEngine {
  readonly info: EngineInfo;
  /** Refuses bad files, unknown languages and page ranges with `InvalidInputError`. */
  ocrPdf(
    input: InputFile,
    request: OcrPdfRequest,
    job: WorkContext,
    onProgress?: OcrPdfProgress,
  ): Promise<OcrPdfOutput>;
}
