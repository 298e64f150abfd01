// Looks at an uploaded PDF before any real work is done on it (issue #2, "Bad input"; issue #3 asks the
// same before Ghostscript runs, which "returns success with a blank one-page PDF" for empty, encrypted
// and page-less files). Cheap checks first: the bytes, then qpdf's page count (and its password query
// when it cannot count), or pdf-lib in a worker thread when qpdf is not installed. Used by the
// merge/split and compress engines.
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  checkPageCount,
  damaged,
  emptyFile,
  encryptedWithPassword,
  notAPdf,
} from './pdf/pdf-input-errors.js';
import { runPdfLibTask } from './pdf/run-pdf-lib-task.js';
import { type QpdfRun, qpdfPageCount, runQpdf } from './pdf/run-qpdf.js';
import type { DetectedTools } from './tools.js';
import type { InputFile } from './types.js';

export interface PdfInspection {
  pageCount: number;
}

export interface InspectOptions {
  maxPages: number;
  tools: DetectedTools;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * ISO 32000 §7.5.2 puts `%PDF-` first; Adobe's PDF Reference 1.7 (Appendix H, note 13) lets it
 * appear anywhere in the first 1024 bytes, and qpdf and pdf-lib accept such files too.
 */
const HEADER_WINDOW = 1024;

/** Refuses an empty file or one with no `%PDF-` header, judging by its bytes, never its name. */
export async function checkPdfBytes(input: InputFile): Promise<void> {
  const file = await open(input.path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(HEADER_WINDOW), 0, HEADER_WINDOW, 0);
    if (bytesRead === 0) throw emptyFile(input.label);
    if (!buffer.subarray(0, bytesRead).includes('%PDF-')) throw notAPdf(input.label);
  } finally {
    await file.close();
  }
}

async function pageCountWithQpdf(input: InputFile, run: QpdfRun): Promise<number> {
  const pageCount = await qpdfPageCount(input.path, run);
  if (pageCount !== undefined) return pageCount;
  // Only a file qpdf cannot open needs telling apart: `--requires-password` exits 0 only when a
  // password is needed (2: not encrypted, 3: encrypted but opens without one, as the count just did).
  // Asking after the count, not before, saves a second qpdf run per good file (20 per merge).
  const password = await runQpdf(['--requires-password', input.path], run);
  throw password.exitCode === 0 ? encryptedWithPassword(input.label) : damaged(input.label);
}

/**
 * Checks that `input` is a readable, unencrypted PDF with 1 to `maxPages` pages and returns its page
 * count. Throws InvalidInputError naming `input.label` otherwise.
 */
export async function inspectPdf(input: InputFile, o: InspectOptions): Promise<PdfInspection> {
  await checkPdfBytes(input);
  if (o.tools.qpdf === undefined) {
    // The worker applies the page checks itself, before it touches the page tree further.
    return runPdfLibTask('inspect', { input, maxPages: o.maxPages }, o);
  }
  const pageCount = await pageCountWithQpdf(input, {
    qpdf: o.tools.qpdf,
    cwd: dirname(input.path),
    timeoutMs: o.timeoutMs,
    signal: o.signal,
  });
  checkPageCount(input.label, pageCount, o.maxPages);
  return { pageCount };
}
