// How many pages one merge or split may write (issue #11.8: a Free user's split of a 5000-page file with
// 100 ranges of `1-5000` ran 367 s and stored 92 MB). The limit is the caller's plan's
// (accounts/plans.ts, documented in openapi.yaml); engines check it once the page counts are known and
// before any tool writes: split through parsePageRanges, merge after inspecting every input.
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

export function checkMergeBudget(pages: number, files: number, budget: PageBudget): void {
  if (pages <= budget.maxPages) return;
  throw refuse(`The ${files} files have ${pages} pages in all`, budget, 'Merge fewer pages per request.');
}
