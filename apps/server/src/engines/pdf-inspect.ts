// Looks at an uploaded PDF before any real work is done on it, and decides for compress, merge and split
// alike whether it can be used (issue #9: a page tree with a loop gave compress a blank page while merge
// and split refused it; issue #2 "Bad input"; issue #3: Ghostscript "returns success with a blank
// one-page PDF" for empty, encrypted and page-less files). Cheap checks first: the bytes (pdf-header.ts),
// then the pages really in the page tree, walked by qpdf (and its password query when it cannot walk
// it), or by pdf-lib in a worker thread when qpdf is not installed.
import { dirname } from 'node:path';
import { checkPdfBytes, pdfFromHeader } from './pdf/pdf-header.js';
import {
  checkPageCount,
  damaged,
  encryptedWithPassword,
  pageTreeLoop,
  unprocessable,
} from './pdf/pdf-input-errors.js';
import { runPdfLibTask } from './pdf/run-pdf-lib-task.js';
import { type QpdfRun, runQpdf, walkPages } from './pdf/run-qpdf.js';
import type { DetectedTools } from './tools.js';
import type { InputFile } from './types.js';

export { checkPdfBytes };

export interface PdfInspection {
  /** Pages found by walking the page tree, not the /Count the file claims (issue #11.4). */
  pageCount: number;
  /**
   * The file every tool must read: the upload itself, or a copy from its `%PDF-` header on when binary
   * bytes came before it, so Ghostscript is only ever handed a PDF (issue #11.1).
   */
  path: string;
}

export interface InspectOptions {
  maxPages: number;
  tools: DetectedTools;
  timeoutMs: number;
  signal?: AbortSignal;
}

async function pageCountWithQpdf(path: string, label: string, run: QpdfRun): Promise<number> {
  const walk = await walkPages(path, run);
  if ('pageCount' in walk) return walk.pageCount;
  if (walk.failure === 'loop') throw pageTreeLoop(label);
  if (walk.failure === 'crash') throw unprocessable(label);
  // Only a file qpdf cannot open needs telling apart: `--requires-password` exits 0 only when a
  // password is needed (2: not encrypted, 3: encrypted but opens without one, as the walk just did).
  // Asking after the walk, not before, saves a second qpdf run per good file (20 per merge).
  const password = await runQpdf(['--requires-password', path], run);
  throw password.exitCode === 0 ? encryptedWithPassword(label) : damaged(label);
}

/**
 * Checks that `input` is a readable, unencrypted PDF with 1 to `maxPages` pages and a page tree without
 * loops, and returns its page count and the path tools must read. Throws InvalidInputError naming
 * `input.label` otherwise.
 */
export async function inspectPdf(input: InputFile, o: InspectOptions): Promise<PdfInspection> {
  const path = await pdfFromHeader(input, await checkPdfBytes(input));
  if (o.tools.qpdf === undefined) {
    // The worker applies the page checks itself, before it touches the page tree further.
    const { pageCount } = await runPdfLibTask('inspect', { input, maxPages: o.maxPages }, o);
    return { pageCount, path };
  }
  const pageCount = await pageCountWithQpdf(path, input.label, {
    qpdf: o.tools.qpdf,
    cwd: dirname(input.path),
    timeoutMs: o.timeoutMs,
    signal: o.signal,
  });
  checkPageCount(input.label, pageCount, o.maxPages);
  return { pageCount, path };
}
