// THE place where split's `ranges` field is parsed and validated (STYLE.md principle 13). The rules are
// the ones recorded in openapi.yaml (operation `split`, field `ranges`): 1-based,
// inclusive, comma-separated items of `N` or `N-M`, whitespace allowed around items, each item one
// part in the order given, at most 100 items. Every refusal names the item and the page count.
import { InvalidInputError } from '../errors.js';
import { checkSplitBudget, type PageBudget } from './page-budget.js';

/** openapi.yaml, `split` → `ranges`: "At most 100 items." */
export const MAX_RANGES = 100;

export interface PageRange {
  /** First page, 1-based. */
  first: number;
  /** Last page, 1-based, inclusive. */
  last: number;
  /** Normalised text for the response: `"3-5"`, or `"7"` when first and last are equal. */
  text: string;
}

const ITEM = /^(\d+)(?:-(\d+))?$/;

function pages(count: number): string {
  return count === 1 ? '1 page' : `${count} pages`;
}

/** `pageCount` is undefined where the pages are not known yet (pageRangesText). */
function refuse(item: string, problem: string, pageCount: number | undefined): InvalidInputError {
  const known = pageCount === undefined ? '' : ` (the document has ${pages(pageCount)})`;
  return new InvalidInputError(`Invalid page range "${item}": ${problem}${known}.`);
}

function parseItem(item: string, position: number, pageCount: number | undefined): PageRange {
  if (item === '') {
    throw refuse(item, `item ${position} is empty; write N or N-M between the commas`, pageCount);
  }
  const match = ITEM.exec(item);
  if (match === null) {
    throw refuse(item, 'write a page number N or a range N-M, such as 3 or 3-5', pageCount);
  }
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  if (first === 0 || last === 0) throw refuse(item, 'pages are numbered from 1', pageCount);
  if (first > last) throw refuse(item, `the first page (${first}) is after the last (${last})`, pageCount);
  // Quote the digits as written: a 30-digit page number would print as 1e+29.
  const lastText = match[2] ?? match[1];
  if (pageCount !== undefined && last > pageCount)
    throw refuse(item, `page ${lastText} is past the end of the document`, pageCount);
  return { first, last, text: first === last ? `${first}` : `${first}-${last}` };
}

/**
 * Parses the raw `ranges` form field against a document of `pageCount` pages, and refuses ranges that
 * would write more pages in all than `budget` allows.
 */
export function parsePageRanges(raw: string, pageCount: number, budget: PageBudget): PageRange[] {
  const items = raw.split(',').map((item) => item.trim());
  if (items.length > MAX_RANGES) {
    throw new InvalidInputError(
      `Too many page ranges: ${items.length} given, at most ${MAX_RANGES} are allowed ` +
        `(the document has ${pages(pageCount)}).`,
    );
  }
  const ranges = items.map((item, index) => parseItem(item, index + 1, pageCount));
  const written = ranges.reduce((sum, range) => sum + range.last - range.first + 1, 0);
  checkSplitBudget(written, ranges.length, budget);
  return ranges;
}

/**
 * The raw field checked by the same rules where the document's pages are not known yet (Office to PDF:
 * LibreOffice counts them as it writes), normalised: ` 1-3 , 7` -> `1-3,7`.
 */
export function pageRangesText(raw: string): string {
  const items = raw.split(',').map((item) => item.trim());
  if (items.length > MAX_RANGES)
    throw new InvalidInputError(
      `Too many page ranges: ${items.length} given, at most ${MAX_RANGES} are allowed.`,
    );
  return items.map((item, index) => parseItem(item, index + 1, undefined).text).join(',');
}
