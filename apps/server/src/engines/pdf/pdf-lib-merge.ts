// The pdf-lib worker's `merge` task: every input is loaded and checked before any page is copied, so a
// bad file 7 is refused before work is spent on files 1 to 6 ("refuse ... before doing any
// work"), and so is a merge over the page budget.
import { PDFDocument } from 'pdf-lib';
import { checkMergeBudget } from '../page-budget.js';
import type { InputFile, PageBudget } from '../types.js';
import { appendPages, type LoadedPdf, loadPdf, savePdf } from './pdf-lib-io.js';

export interface MergeArgs {
  inputs: readonly InputFile[];
  maxPages: number;
  budget: PageBudget;
  output: string;
}

export async function mergeWithPdfLib(args: MergeArgs): Promise<{ pageCount: number }> {
  const sources: { label: string; pdf: LoadedPdf }[] = [];
  for (const input of args.inputs) {
    sources.push({ label: input.label, pdf: await loadPdf(input, args.maxPages) });
  }
  const pageCount = sources.reduce((sum, { pdf }) => sum + pdf.pageCount, 0);
  checkMergeBudget(pageCount, sources.length, args.budget);
  const merged = await PDFDocument.create({ updateMetadata: false });
  for (const { label, pdf } of sources) {
    await appendPages(merged, pdf, pdf.doc.getPageIndices(), label);
  }
  await savePdf(merged, args.output, pageCount);
  return { pageCount };
}
