// Which pages the content check compares: the first, the last and evenly spread between, never more than
// SAMPLE_PAGES, so the check costs the same on a 5000-page file as on a 5-page one.

export const SAMPLE_PAGES = 5;

/** 1-based page numbers, ascending and distinct. */
export function samplePages(pageCount: number, max = SAMPLE_PAGES): number[] {
  if (pageCount <= max) return Array.from({ length: pageCount }, (_, index) => index + 1);
  const pages = new Set<number>();
  for (let step = 0; step < max; step += 1) pages.add(1 + Math.round((step * (pageCount - 1)) / (max - 1)));
  return [...pages];
}
