// A PDF read a page at a time by either tesseract (the native and tesseract.js engines): every
// page its own unit of work through the CPU slots (page-lanes.ts, read-page.ts), then one assembly
// (page-assembly.ts) whatever the page count; the answer's pages, confidences and texts from the reads.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkContext } from '../types.js';
import type { ReadDocument, ReadPlan } from './document-reader.js';
import { pageText } from './document-text.js';
import type { PageAssembler } from './page-assembly.js';
import { type PageLanes, readInLanes } from './page-lanes.js';
import { type PageOptions, type PageRead, readPage } from './read-page.js';
import type { OcrPdfPageOutcome, OcrPdfProgress } from './types.js';

export interface PdfReadOptions extends PageOptions, PageLanes {
  assembler: PageAssembler;
}

/** The answer for `path`: each page's outcome and confidence, and a read page's text. */
export function readDocument(path: string, pageCount: number, reads: Map<number, PageRead>): ReadDocument {
  const pages: OcrPdfPageOutcome[] = [];
  for (let page = 1; page <= pageCount; page += 1) {
    const read = reads.get(page);
    pages.push(
      read?.status === 'ocred'
        ? { status: 'ocred', confidence: read.confidence }
        : { status: 'skipped', confidence: null },
    );
  }
  return {
    path,
    pages,
    async textOf(page: number) {
      const read = reads.get(page);
      return read?.status === 'ocred' ? pageText(await readFile(read.textPath, 'utf8')) : undefined;
    },
  };
}

export async function readPdf(
  plan: ReadPlan,
  job: WorkContext,
  o: PdfReadOptions,
  onProgress: OcrPdfProgress,
): Promise<ReadDocument> {
  const reads = await readInLanes(plan.pages, o, job.signal, onProgress, async (page, signal) => {
    const folder = join(job.workDir, 'pages', String(page));
    await mkdir(folder, { recursive: true });
    const { mode, rotate, deskew } = plan.request;
    const pageJob = { pdf: plan.doc.path, page, label: plan.input.label, codes: plan.codes, folder, signal };
    return readPage({ ...pageJob, mode, rotate, deskew }, o);
  });
  const edits = plan.pages.flatMap((page) => {
    const read = reads.get(page);
    return read?.status === 'ocred' ? [{ page, ...read }] : [];
  });
  // Nothing read (every page skipped): the original as it came.
  if (edits.length === 0) return readDocument(plan.doc.path, plan.doc.pageCount, reads);
  const output = join(job.workDir, 'searchable.pdf');
  await o.assembler.assemble(plan.doc.path, plan.doc.pageCount, edits, output, job);
  return readDocument(output, plan.doc.pageCount, reads);
}
