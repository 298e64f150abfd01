// The pages of the PDF Chromium printed: its page tree walked in this process (a plain file, as
// Chromium writes), or by pdf-lib where the walk leaves it to another reader (a file over 8 MiB).
import { readFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { walkPageTreeOf } from '../pdf/page-walk/page-tree-walk.js';

/** Far above any plan's page budget: the printed range is capped one page past it. */
const MAX_WALKED_PAGES = 1_000_000;

export async function countPages(path: string): Promise<number> {
  const walk = await walkPageTreeOf(path, MAX_WALKED_PAGES);
  if (walk !== undefined) return walk.pageCount;
  const document = await PDFDocument.load(await readFile(path), { updateMetadata: false });
  return document.getPageCount();
}
