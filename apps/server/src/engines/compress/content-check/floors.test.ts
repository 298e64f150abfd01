import { describe, expect, it } from 'vitest';
import {
  CONTENT_FLOORS,
  type PageScore,
  pagesBelowFloor,
  type WordScore,
  wordsBelowFloor,
} from './floors.js';

const pages = (...psnrs: number[]): PageScore[] =>
  psnrs.map((psnrDb, index) => ({ page: index + 1, psnrDb }));
const words = (kept: number, reference: number): WordScore => ({ kept, reference });

// Both sides of each floor (issue #9): legitimate compressions measured 21-59 dB at this render size,
// blanked pages and dropped images 0-12 dB.
describe('pagesBelowFloor', () => {
  // [name, { given: page scores, want: part of the refusal, or undefined when they pass }]
  const table: [string, { given: PageScore[]; want: RegExp | undefined }][] = [
    ['identical pages', { given: pages(Infinity, Infinity), want: undefined }],
    ['no page compared', { given: [], want: undefined }],
    ['a JPEG-recompressed photo page', { given: pages(44.5, 51.2), want: undefined }],
    ['exactly on the floor', { given: pages(CONTENT_FLOORS.psnrDb), want: undefined }],
    ['just under it', { given: pages(30, 19.99), want: /page 2 .* 20\.0 dB PSNR, floor 20 dB/ }],
    ['one blanked page among good ones', { given: pages(40, 2.5, 38), want: /page 2 .* 2\.5 dB/ }],
    ['a page that changed size', { given: pages(0), want: /page 1 .* 0\.0 dB/ }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const verdict = pagesBelowFloor(given);
    if (want === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(want);
  });
});

describe('wordsBelowFloor', () => {
  // [name, { given: words kept of the input's, want: part of the refusal, or undefined when it passes }]
  const table: [string, { given: WordScore; want: RegExp | undefined }][] = [
    ['every word', { given: words(120, 120), want: undefined }],
    ['no words in the input', { given: words(0, 0), want: undefined }],
    ['exactly 95%', { given: words(19, 20), want: undefined }],
    ['94.9%', { given: words(949, 1000), want: /kept 949 of .* 1000 .* \(94\.9%\), floor 95%/ }],
    ['text gone', { given: words(0, 40), want: /kept 0 of the input's 40/ }],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const verdict = wordsBelowFloor(given);
    if (want === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(want);
  });
});
