// Looks at an uploaded PDF before any real work is done on it, and decides for compress, merge and split
// alike whether it can be used (a page tree with a loop gave compress a blank page while merge
// and split refused it; Ghostscript returns success with a blank
// one-page PDF for empty, encrypted and page-less files). Cheap checks first: the bytes (pdf-header.ts),
// then the pages really in the page tree, walked in this process for plain files (page-walk/), else by
// qpdf (and its password query when it cannot walk it), or by pdf-lib in a worker thread when qpdf is
// not installed. Merge inputs qpdf must walk are counted together (inspectPdfs) and walked one by one
// only when that finds a fault to name.
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import { walkPageTreeOf } from './pdf/page-walk/page-tree-walk.js';
import { type ShownSize, ShownSizes } from './pdf/page-walk/shown-sizes.js';
import { checkPdfBytes, pdfFromHeader } from './pdf/pdf-header.js';
import {
  checkPageCount,
  damaged,
  encryptedWithPassword,
  pageTreeLoop,
  unprocessable,
} from './pdf/pdf-input-errors.js';
import { runPdfLibTask } from './pdf/run-pdf-lib-task.js';
import { countPagesTogether, type QpdfRun, runQpdf, walkPages } from './pdf/run-qpdf.js';
import type { DetectedTools } from './tools.js';
import type { InputFile } from './types.js';

export { checkPdfBytes };

export interface PdfInspection {
  /** Pages found by walking the page tree, not the /Count the file claims. */
  pageCount: number;
  /**
   * The file every tool must read: the upload itself, or a copy from its `%PDF-` header on when binary
   * bytes came before it, so Ghostscript is only ever handed a PDF.
   */
  path: string;
  /** Each page's shown size, in page order, when asked and the walk here was sure of them (shown-sizes.ts). */
  shownSizes?: ShownSize[];
}

export interface InspectOptions {
  maxPages: number;
  tools: DetectedTools;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Also read each page's shown size on the walk, where it is made here (PDF to images). */
  shownSizes?: boolean;
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
    const { pageCount } = await runPdfLibTask(
      'inspect',
      { input, maxPages: o.maxPages },
      { ...o, blame: input.label },
    );
    return { pageCount, path };
  }
  const shown = o.shownSizes === true ? new ShownSizes() : undefined;
  const walk = await walkPageTreeOf(path, o.maxPages, shown?.visit);
  const pageCount =
    walk?.pageCount ??
    (await pageCountWithQpdf(path, input.label, {
      qpdf: o.tools.qpdf,
      cwd: dirname(input.path),
      timeoutMs: o.timeoutMs,
      signal: o.signal,
    }));
  checkPageCount(input.label, pageCount, o.maxPages);
  const shownSizes = walk === undefined ? undefined : shown?.sizes;
  return { pageCount, path, ...(shownSizes === undefined ? {} : { shownSizes }) };
}

export interface PdfsInspection {
  /** Each input's label with the file tools must read for it (PdfInspection.path), in upload order. */
  files: InputFile[];
  /** Pages of all inputs together. */
  pageCount: number;
}

/** Inspects each input alone; the first failure in upload order is thrown (merge names that file). */
async function inspectEach(inputs: readonly InputFile[], o: InspectOptions): Promise<PdfsInspection> {
  const outcomes = await Promise.allSettled(inputs.map((input) => inspectPdf(input, o)));
  const files: InputFile[] = [];
  let pageCount = 0;
  for (const [index, outcome] of outcomes.entries()) {
    if (outcome.status === 'rejected') throw outcome.reason;
    files.push({ label: (inputs[index] as InputFile).label, path: outcome.value.path });
    pageCount += outcome.value.pageCount;
  }
  return { files, pageCount };
}

/**
 * The pages of all `files` together, or undefined when a file is unreadable or may be over the cap of
 * one file. One qpdf run per CPU, each counting its share of the files (countPagesTogether). A run of
 * one file counts that file's pages as walking it alone would: over the cap, that file is refused here,
 * the files before it having been counted sound, which spares a 100,000-page upload a second walk.
 */
async function pagesTogether(
  files: readonly InputFile[],
  run: QpdfRun,
  maxPages: number,
): Promise<number | undefined> {
  const share = Math.ceil(files.length / availableParallelism());
  const groups = Array.from({ length: Math.ceil(files.length / share) }, (_, i) =>
    files.slice(i * share, (i + 1) * share),
  );
  const counts = await Promise.all(
    groups.map((group) =>
      countPagesTogether(
        group.map((file) => file.path),
        run,
      ),
    ),
  );
  let total = 0;
  for (const [index, count] of counts.entries()) {
    if (count === undefined) return undefined;
    const [only, ...more] = groups[index] ?? [];
    if (only !== undefined && more.length === 0) checkPageCount(only.label, count, maxPages);
    // A group over one file's cap may hide a file over it: only walking each alone can tell.
    else if (count > maxPages) return undefined;
    total += count;
  }
  return total;
}

/**
 * The pages of all `files` walked in this process (page-walk/), or undefined when any of them needs
 * qpdf. Judged one after another in upload order, each read whole; the next file is read while the one
 * before is walked, so at most two are held at a time. Read one by one, the walks of a 20-file merge
 * left the event loop waiting on the reads for about a third of their wall time (the merge bench).
 */
async function pagesWalkedHere(files: readonly InputFile[], maxPages: number): Promise<number | undefined> {
  const walkOf = (index: number) => {
    const file = files[index];
    if (file === undefined) return undefined;
    const walk = walkPageTreeOf(file.path, maxPages);
    // Read ahead, a walk may fail before anyone awaits it, or be left when a file before it is refused:
    // handled here, so that it is never an unhandled rejection; an await still gets the failure.
    walk.catch(() => undefined);
    return walk;
  };
  let total = 0;
  let next = walkOf(0);
  for (const [index, file] of files.entries()) {
    const walk = next;
    next = walkOf(index + 1);
    const walked = await walk;
    if (walked === undefined) return undefined;
    checkPageCount(file.label, walked.pageCount, maxPages);
    total += walked.pageCount;
  }
  return total;
}

/**
 * Checks merge inputs as inspectPdf checks each: walked in this process when they are plain, otherwise
 * with one qpdf run per CPU instead of one per file
 * (the merge bench, 20 files of 50 pages with qpdf 11.3: 20 walks took 210 ms of CPU and 20 process
 * starts, 2 runs together 100 ms; the merge itself takes 160 ms).
 * Only when a run fails, or a group of several files holds more pages than one file may, is each file
 * inspected alone, which names the first bad one in upload order: the verdict is the one inspectPdf
 * gives file by file.
 */
export async function inspectPdfs(inputs: readonly InputFile[], o: InspectOptions): Promise<PdfsInspection> {
  const [first] = inputs;
  const { qpdf } = o.tools;
  if (first !== undefined && qpdf !== undefined) {
    // Settled, not raced: a file's copy from its header must be written before inspectEach redoes it.
    const headers = await Promise.allSettled(
      inputs.map(async (input) => ({
        label: input.label,
        path: await pdfFromHeader(input, await checkPdfBytes(input)),
      })),
    );
    if (headers.every((header) => header.status === 'fulfilled')) {
      const files = headers.map((header) => header.value);
      const walked = await pagesWalkedHere(files, o.maxPages);
      if (walked !== undefined) return { files, pageCount: walked };
      const run = { qpdf, cwd: dirname(first.path), timeoutMs: o.timeoutMs, signal: o.signal };
      const pageCount = await pagesTogether(files, run, o.maxPages);
      if (pageCount !== undefined) return { files, pageCount };
    }
  }
  return inspectEach(inputs, o);
}
