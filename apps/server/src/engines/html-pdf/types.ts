// HTML to PDF (openapi.yaml operation `htmlToPdf`): what the engine is asked and answers.
import type { PaperSize } from '@pdn/api-types';
import type { InputFile, PdfOutput, WorkContext } from '../types.js';

/** An uploaded file of the page, at its path on the page's origin (`css/site.css`). */
export interface PageFile {
  /** Where the page finds it, relative to `index.html`: no leading `/`, no `.` or `..` segment. */
  name: string;
  path: string;
}

/** The uploaded page: `index.html` and what it loads beside it. */
export interface HtmlPage {
  html: InputFile;
  assets: readonly PageFile[];
}

export type WaitUntil = 'load' | 'network_idle';

/** How the page is printed (openapi.yaml `htmlToPdf` fields). */
export interface PrintOptions {
  paperSize: PaperSize;
  landscape: boolean;
  marginMm: number;
  printBackground: boolean;
  /** Chromium's header and footer templates; a page shows both bands when either is given. */
  headerTemplate: string | undefined;
  footerTemplate: string | undefined;
  javascript: boolean;
  waitUntil: WaitUntil;
  /** A CSS selector the page must match before it is printed. */
  waitFor: string | undefined;
}

/** What the caller's plan lets one request take (accounts/plans.ts). */
export interface HtmlBudget {
  /** From the first byte loaded to the last page printed. */
  seconds: number;
  maxPages: number;
  /** Whose limit it is, for messages: "the Free plan". */
  holder: string;
}

export interface HtmlPdfOutput extends PdfOutput {
  /** The first URLs the page asked for that were refused (neither uploaded nor `data:`). */
  blocked: string[];
}

export interface HtmlPdfEngine {
  /** The page printed to one PDF in `job.workDir`; over a budget is InvalidInputError; where Chromium
   * is not installed, ConverterUnavailableError. */
  toPdf(page: HtmlPage, options: PrintOptions, budget: HtmlBudget, job: WorkContext): Promise<HtmlPdfOutput>;
  /** Closes the browser (server shutdown, tests). */
  close(): Promise<void>;
}
