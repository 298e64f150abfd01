// Office to PDF (openapi.yaml operation `officeToPdf`): what the engine is asked and answers.
import type { OfficeFormat, PdfaLevel } from '@pdn/api-types';
import type { InputFile, WorkContext } from '../types.js';

export interface OfficeRequest {
  /** The raw `pages` field (split's range syntax); every page when undefined. */
  pages?: string | undefined;
  /** Turn every page style to landscape (text documents and sheets; slides keep their size). */
  landscape: boolean;
  /** A PDF/A level, or a plain PDF when undefined. */
  pdfa?: PdfaLevel | undefined;
  /** Tagged PDF meeting PDF/UA. */
  pdfua: boolean;
  /** The document's headings (or sheets, slides) as the PDF's bookmarks. */
  bookmarks: boolean;
}

/** What the caller's plan lets one conversion take (accounts/plans.ts). */
export interface OfficeBudget {
  /** Wall-clock time of the conversion in LibreOffice (a warm instance's, or one started for it). */
  seconds: number;
  /** Memory LibreOffice may allocate for the document. */
  memoryBytes: number;
  /** Pages the PDF may have. */
  maxPages: number;
  /** Whose limit it is, for messages: "the Free plan". */
  holder: string;
}

export interface OfficePdfOutput {
  path: string;
  pageCount: number;
  size: number;
  /** The upload's format, recognised by its bytes. */
  format: OfficeFormat;
}

export interface OfficePdfEngine {
  /** Converts `input` into a PDF inside `job.workDir`; bad input or a spent budget is InvalidInputError. */
  toPdf(
    input: InputFile,
    request: OfficeRequest,
    budget: OfficeBudget,
    job: WorkContext,
  ): Promise<OfficePdfOutput>;
  /** Ends every LibreOffice instance (server shutdown, tests). */
  close(): Promise<void>;
}
