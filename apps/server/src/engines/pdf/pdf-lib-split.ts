// The pdf-lib worker's `split` task: one load of the source, ranges validated against its page count by
// the one ranges module, then one output per range in the order given.
import { PDFDocument } from 'pdf-lib';
import { parsePageRanges } from '../page-ranges.js';
import type { InputFile, PageBudget } from '../types.js';
import { partPath } from './outputs.js';
import { appendPages, loadPdf, savePdf } from './pdf-lib-io.js';

export interface SplitArgs {
  input: InputFile;
  /** The raw `ranges` form field. */
  ranges: string;
  maxPages: number;
  budget: PageBudget;
  workDir: string;
}

export interface SplitPart {
  path: string;
  pages: string;
  pageCount: number;
}

export async function splitWithPdfLib(args: SplitArgs): Promise<SplitPart[]> {
  const source = await loadPdf(args.input, args.maxPages);
  const parts: SplitPart[] = [];
  for (const [index, range] of parsePageRanges(args.ranges, source.pageCount, args.budget).entries()) {
    const part = await PDFDocument.create({ updateMetadata: false });
    const indices = Array.from(
      { length: range.last - range.first + 1 },
      (_, offset) => range.first - 1 + offset,
    );
    await appendPages(part, source, indices, args.input.label);
    const path = partPath(args.workDir, index);
    await savePdf(part, path, indices.length);
    parts.push({ path, pages: range.text, pageCount: indices.length });
  }
  return parts;
}
