import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import type { PageBudget } from './page-budget.js';
import { MAX_RANGES, pageRangesText, parsePageRanges } from './page-ranges.js';

/** Large enough never to decide the tests that are not about it. */
const AMPLE: PageBudget = { maxPages: 1_000_000, holder: 'the test plan' };

// [name, { given, pageCount, want }]: want is the normalised text of each part, in order.
const valid: [string, { given: string; pageCount: number; want: string[] }][] = [
  ['one page', { given: '7', pageCount: 10, want: ['7'] }],
  ['one range', { given: '3-5', pageCount: 10, want: ['3-5'] }],
  ['N-N collapses to N', { given: '7-7', pageCount: 10, want: ['7'] }],
  ['mixed items keep their order', { given: '5-9,1-3,4', pageCount: 9, want: ['5-9', '1-3', '4'] }],
  ['whitespace around items', { given: ' 1-2 ,\t3 , 4-4 ', pageCount: 4, want: ['1-2', '3', '4'] }],
  [
    'overlaps and repeats are separate parts',
    { given: '1-3,2-4,2-4', pageCount: 4, want: ['1-3', '2-4', '2-4'] },
  ],
  ['the last page', { given: '12', pageCount: 12, want: ['12'] }],
  ['the whole document', { given: '1-12', pageCount: 12, want: ['1-12'] }],
  ['leading zeros', { given: '03-05', pageCount: 9, want: ['3-5'] }],
  [
    'exactly the maximum number of items',
    { given: Array(MAX_RANGES).fill('1').join(','), pageCount: 1, want: Array(MAX_RANGES).fill('1') },
  ],
];

describe('parsePageRanges accepts', () => {
  it.each(valid)('%s', (_name, { given, pageCount, want }) => {
    expect(parsePageRanges(given, pageCount, AMPLE).map((range) => range.text)).toEqual(want);
  });

  it('gives 1-based inclusive bounds', () => {
    expect(parsePageRanges('2-4,6', 6, AMPLE)).toEqual([
      { first: 2, last: 4, text: '2-4' },
      { first: 6, last: 6, text: '6' },
    ]);
  });
});

// [name, { given, pageCount, want }]: want is a fragment of the message; every message must also
// quote the offending item and state the document's page count (checked below for all rows).
const invalid: [string, { given: string; pageCount: number; item: string; want: string }][] = [
  [
    'first page after the last',
    { given: '1,5-3', pageCount: 10, item: '5-3', want: 'first page (5) is after the last (3)' },
  ],
  ['page 0 alone', { given: '0', pageCount: 10, item: '0', want: 'numbered from 1' }],
  ['page 0 in a range', { given: '0-2', pageCount: 10, item: '0-2', want: 'numbered from 1' }],
  ['past the end', { given: '8-11', pageCount: 10, item: '8-11', want: 'page 11 is past the end' }],
  ['a single page past the end', { given: '11', pageCount: 10, item: '11', want: 'page 11 is past the end' }],
  [
    'a huge number, quoted as written',
    {
      given: '1-100000000000000000000000',
      pageCount: 10,
      item: '1-100000000000000000000000',
      want: 'page 100000000000000000000000 is past',
    },
  ],
  ['an empty item between commas', { given: '1,,3', pageCount: 10, item: '', want: 'item 2 is empty' }],
  ['a trailing comma', { given: '1,', pageCount: 10, item: '', want: 'item 2 is empty' }],
  ['an empty field', { given: '', pageCount: 10, item: '', want: 'item 1 is empty' }],
  ['blank item', { given: '1, ,3', pageCount: 10, item: '', want: 'item 2 is empty' }],
  ['letters', { given: 'abc', pageCount: 10, item: 'abc', want: 'write a page number N or a range N-M' }],
  ['an open range', { given: '3-', pageCount: 10, item: '3-', want: 'write a page number N or a range N-M' }],
  [
    'a range from the start',
    { given: '-3', pageCount: 10, item: '-3', want: 'write a page number N or a range N-M' },
  ],
  [
    'a negative page',
    { given: '-1', pageCount: 10, item: '-1', want: 'write a page number N or a range N-M' },
  ],
  ['a decimal', { given: '1.5', pageCount: 10, item: '1.5', want: 'write a page number N or a range N-M' }],
  [
    'spaces inside an item',
    { given: '3 - 5', pageCount: 10, item: '3 - 5', want: 'write a page number N or a range N-M' },
  ],
  [
    'three numbers',
    { given: '1-2-3', pageCount: 10, item: '1-2-3', want: 'write a page number N or a range N-M' },
  ],
  [
    'a semicolon list',
    { given: '1;2', pageCount: 10, item: '1;2', want: 'write a page number N or a range N-M' },
  ],
  [
    'non-ASCII digits',
    { given: '١', pageCount: 10, item: '١', want: 'write a page number N or a range N-M' },
  ],
];

describe('parsePageRanges refuses', () => {
  it.each(invalid)('%s', (_name, { given, pageCount, item, want }) => {
    const error = (() => {
      try {
        parsePageRanges(given, pageCount, AMPLE);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    const message = (error as InvalidInputError).message;
    expect(message).toContain(`"${item}"`);
    expect(message).toContain(want);
    expect(message).toContain(`the document has ${pageCount} pages`);
  });

  it('more than the maximum number of items, before looking at any item', () => {
    const given = Array(MAX_RANGES + 1)
      .fill('junk')
      .join(',');
    expect(() => parsePageRanges(given, 1, AMPLE)).toThrow(
      new InvalidInputError(
        'Too many page ranges: 101 given, at most 100 are allowed (the document has 1 page).',
      ),
    );
  });

  it('says "1 page" for a one-page document', () => {
    expect(() => parsePageRanges('2', 1, AMPLE)).toThrow('(the document has 1 page)');
  });
});

describe('parsePageRanges and the page budget', () => {
  const budget: PageBudget = { maxPages: 10, holder: 'the Free plan' };

  // [name, ranges, pageCount, pages written]
  const within: [string, string, number, number][] = [
    ['exactly the budget', '1-10', 20, 10],
    ['repeats count each time, up to the budget', '1-5,1-5', 5, 10],
  ];
  it.each(within)('accepts %s', (_name, given, pageCount, written) => {
    const ranges = parsePageRanges(given, pageCount, budget);
    expect(ranges.reduce((sum, range) => sum + range.last - range.first + 1, 0)).toBe(written);
  });

  // [name, ranges, pageCount, message]
  const over: [string, string, number, string][] = [
    [
      'one range over the budget',
      '1-11',
      20,
      'The range asks for 11 pages in all; the Free plan allows at most 10 pages written per request.',
    ],
    [
      'repeats that add up to more',
      Array(3).fill('1-4').join(','),
      4,
      'The 3 ranges ask for 12 pages in all; the Free plan allows at most 10 pages written per request.',
    ],
  ];
  it.each(over)('refuses %s, before any page is written', (_name, given, pageCount, message) => {
    expect(() => parsePageRanges(given, pageCount, budget)).toThrow(InvalidInputError);
    expect(() => parsePageRanges(given, pageCount, budget)).toThrow(message);
  });
});

describe('pageRangesText, before the pages are known', () => {
  it.each([
    ['one page', '7', '7'],
    ['ranges with spaces', ' 1-3 , 7 ', '1-3,7'],
    ['a range of one page', '4-4', '4'],
  ])('normalises %s', (_name, given, want) => {
    expect(pageRangesText(given)).toBe(want);
  });

  it.each([
    ['a backwards range', '3-1', 'Invalid page range "3-1": the first page (3) is after the last (1).'],
    ['page 0', '0', 'Invalid page range "0": pages are numbered from 1.'],
    ['an empty item', '1,,2', 'Invalid page range "": item 2 is empty; write N or N-M between the commas.'],
    [
      'too many items',
      Array.from({ length: 101 }, (_, i) => i + 1).join(','),
      'Too many page ranges: 101 given, at most 100 are allowed.',
    ],
  ])('refuses %s, saying nothing of pages it does not know', (_name, given, message) => {
    expect(() => pageRangesText(given)).toThrow(message);
  });
});
