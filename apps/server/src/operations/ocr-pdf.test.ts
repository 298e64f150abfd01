// The inline text of `ocrPdf` (openapi.yaml OcrPdfResult `text`, `text_truncated`): the text file's first
// INLINE_TEXT_LIMIT characters, counted as code points whatever their UTF-8 length, and the flag set only
// when something was cut.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INLINE_TEXT_LIMIT, inlineText } from './ocr-pdf.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-inline-text-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LIMIT = INLINE_TEXT_LIMIT;

describe('inlineText', () => {
  const table: [string, { given: string; want: { length: number; truncated: boolean } }][] = [
    ['a short text', { given: 'page one\fpage two', want: { length: 17, truncated: false } }],
    ['no text at all (every page skipped)', { given: '\f\f', want: { length: 2, truncated: false } }],
    ['exactly the limit', { given: 'a'.repeat(LIMIT), want: { length: LIMIT, truncated: false } }],
    ['one character over', { given: 'a'.repeat(LIMIT + 1), want: { length: LIMIT, truncated: true } }],
    ['far over', { given: 'a'.repeat(LIMIT * 5), want: { length: LIMIT, truncated: true } }],
    ['the limit in 2-byte letters', { given: 'я'.repeat(LIMIT), want: { length: LIMIT, truncated: false } }],
    ['over, in 2-byte letters', { given: 'я'.repeat(LIMIT + 1), want: { length: LIMIT, truncated: true } }],
    [
      'the limit in 4-byte characters',
      { given: '𝔸'.repeat(LIMIT), want: { length: LIMIT, truncated: false } },
    ],
    [
      'over, in 4-byte characters',
      { given: '𝔸'.repeat(LIMIT + 1), want: { length: LIMIT, truncated: true } },
    ],
  ];
  it.each(table)('%s', async (name, { given, want }) => {
    const path = join(dir, `${name.replace(/\W+/g, '-')}.txt`);
    await writeFile(path, given);
    const { text, truncated } = await inlineText(path);
    expect({ length: [...text].length, truncated }).toEqual(want);
    expect(given.startsWith(text)).toBe(true);
  });
});
