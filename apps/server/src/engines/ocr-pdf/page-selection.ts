// The `pages` field of `ocrPdf` (openapi.yaml): split's range syntax, parsed by the one module that
// owns it (page-ranges.ts), read here as a set of pages. A page named twice is read once.
import { parsePageRanges } from '../page-ranges.js';

/** The pages to read, ascending, 1-based: every page when `raw` is undefined. */
export function selectPages(raw: string | undefined, pageCount: number): number[] {
  if (raw === undefined) return Array.from({ length: pageCount }, (_, index) => index + 1);
  // Reading writes no pages of its own: the document's page cap (checked on input) is the bound.
  const ranges = parsePageRanges(raw, pageCount, {
    maxPages: Number.MAX_SAFE_INTEGER,
    holder: 'this server',
  });
  const pages = new Set<number>();
  for (const range of ranges) for (let page = range.first; page <= range.last; page += 1) pages.add(page);
  return [...pages].sort((a, b) => a - b);
}

/** `1-3,7` for tools that take a page list (OCRmyPDF's `--pages`). */
export function pageListText(pages: readonly number[]): string {
  const items: string[] = [];
  let start = pages[0];
  let previous = start;
  for (const page of [...pages.slice(1), Number.NaN]) {
    if (start === undefined || previous === undefined) break;
    if (page === previous + 1) {
      previous = page;
      continue;
    }
    items.push(start === previous ? String(start) : `${start}-${previous}`);
    start = page;
    previous = page;
  }
  return items.join(',');
}
