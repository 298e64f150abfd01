// How many pages one request may ask of the engines, so that no call holds a job slot for long: pages
// written by a merge or split (a Free user's split of a 5000-page file with 100 ranges of `1-5000` once
// ran 367 s and stored 92 MB), pages read by a compression or by OCR of documents (one Free request of
// 5,000 pages to OCR held both cores for three hours). The limits are the caller's plan's
// (accounts/plans.ts, documented in openapi.yaml); engines check them once the page counts are known
// and before any tool works: split through parsePageRanges, merge after inspecting every input,
// compress and OCR of documents after inspecting theirs.
import { InvalidInputError } from '../errors.js';

export interface PageBudget {
  /** Most pages the request may write in all its outputs. */
  maxPages: number;
  /** Whose limit it is, for messages: "the Free plan". */
  holder: string;
}

function refuse(asked: string, budget: PageBudget, advice: string): InvalidInputError {
  return new InvalidInputError(
    `${asked}; ${budget.holder} allows at most ${budget.maxPages} pages written per request. ${advice}`,
  );
}

/** `pages` is the sum of the ranges' lengths: a page asked for twice is written twice. */
export function checkSplitBudget(pages: number, ranges: number, budget: PageBudget): void {
  if (pages <= budget.maxPages) return;
  const asked = `The ${ranges === 1 ? 'range asks' : `${ranges} ranges ask`} for ${pages} pages in all`;
  throw refuse(asked, budget, 'Ask for fewer or shorter ranges, or split in several requests.');
}

/** Pages a compression or OCR of documents would read: `what` says which ("compressing", "to read"). */
export function checkReadBudget(pages: number, what: string, budget: PageBudget | undefined): void {
  if (budget === undefined || pages <= budget.maxPages) return;
  throw new InvalidInputError(
    `The request asks ${what} ${pages} pages; ${budget.holder} allows at most ${budget.maxPages} pages per request. ` +
      'Send fewer pages per request (split the document first), or ask for some pages only where the operation takes `pages`.',
  );
}

export function checkMergeBudget(pages: number, files: number, budget: PageBudget): void {
  if (pages <= budget.maxPages) return;
  throw refuse(`The ${files} files have ${pages} pages in all`, budget, 'Merge fewer pages per request.');
}
