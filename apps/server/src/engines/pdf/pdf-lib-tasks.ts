// The table of jobs the pdf-lib worker thread can run, keyed by name, and the messages that carry them.
// To add a task (the pdf-lib compress fallback, for one): write it in its own file as an async
// function of one structured-cloneable argument, and add one line to `pdfLibTasks`. The main thread
// only imports this file's types, so pdf-lib is never loaded there.
import { compressWithPdfLib } from '../compress/pdf-lib-compress.js';
import { assemblePages, joinPages } from '../ocr-pdf/pdf-lib-page-assembly.js';
import { straightenPage } from '../ocr-pdf/straighten-page.js';
import { stripText } from '../ocr-pdf/strip-text.js';
import type { InputFile } from '../types.js';
import { loadPdf } from './pdf-lib-io.js';
import { mergeWithPdfLib } from './pdf-lib-merge.js';
import { splitWithPdfLib } from './pdf-lib-split.js';

async function inspectWithPdfLib(args: {
  input: InputFile;
  maxPages: number;
}): Promise<{ pageCount: number }> {
  const { pageCount } = await loadPdf(args.input, args.maxPages);
  return { pageCount };
}

export const pdfLibTasks = {
  inspect: inspectWithPdfLib,
  merge: mergeWithPdfLib,
  split: splitWithPdfLib,
  compress: compressWithPdfLib,
  stripText,
  straightenPage,
  assemblePages,
  joinPages,
};

export type PdfLibTasks = typeof pdfLibTasks;
export type PdfLibTaskName = keyof PdfLibTasks;
export type PdfLibTaskArgs<K extends PdfLibTaskName> = Parameters<PdfLibTasks[K]>[0];
export type PdfLibTaskResult<K extends PdfLibTaskName> = Awaited<ReturnType<PdfLibTasks[K]>>;

/** Sent to the worker as its `workerData`: one task per worker. */
export interface PdfLibRequest {
  task: PdfLibTaskName;
  args: unknown;
}

/** The worker's one message back. Errors cross the thread boundary as plain data. */
export type PdfLibReply =
  | { ok: true; value: unknown }
  | { ok: false; invalidInput: boolean; message: string; stack: string | undefined };
