// Fuzz target: the text fields, on inputs that are otherwise good. Split's
// `ranges`, compress's `level` and OCR's `language` are generated from valid and invalid pieces (case,
// separators, unicode digits and dashes, whitespace, long lists); each generated value knows what the
// contract makes of it, so besides the checks of every fuzz target the answer must be the right one:
// a valid value is a 200 that did what it said, an invalid one a 400.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguagesResponse, OcrResponse, SplitResponse } from '@pdn/api-types';
import { IMAGE_ASSETS, labelledPdf } from '@pdn/fixtures';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { field, file, form } from '../harness/form.js';
import { filesLeftSince, listFiles } from '../harness/leftovers.js';
import { useServer } from '../harness/use-server.js';
import { fuzz, fuzzTimeoutMs } from './fuzz-run.js';
import { expectHealthy, judge } from './judge.js';

const ctx = useServer();
/** Pages of the PDF every split cuts. */
const PAGES = 5;
/** openapi.yaml, `split` `ranges`: at most 100 items; `ocr` `language`: at most 5 codes. */
const MAX_RANGES = 100;
const MAX_LANGUAGES = 5;
let key: string;
let pdf: Uint8Array;
let image: Uint8Array;
let languages: string[];

beforeAll(async () => {
  key = await ctx.server.createKey({ user: 'fuzz-fields', plan: 'enterprise' });
  pdf = await labelledPdf('R', PAGES);
  image = await readFile(join(IMAGE_ASSETS, 'text', 'eng-g4.tif'));
  const listed = await ctx.call<LanguagesResponse>('/api/v1/languages', { key });
  languages = listed.json.data.languages.map((language) => language.code);
});

/** What the contract makes of a generated piece: `either` where it leaves the choice to the server. */
type Meaning = 'valid' | 'invalid' | 'either';

interface RangeItem {
  text: string;
  meaning: Meaning;
  /** The part it yields when valid: `pages` as the server writes it, and how many. */
  pages?: string;
  count?: number;
}

const whitespace = fc.constantFrom('', '', '', ' ', '  ', '\t');

const validItem: fc.Arbitrary<RangeItem> = fc
  .tuple(
    fc.integer({ min: 1, max: PAGES }),
    fc.integer({ min: 0, max: PAGES - 1 }),
    fc.boolean(),
    whitespace,
    whitespace,
  )
  .map(([first, extra, single, before, after]) => {
    const last = Math.min(PAGES, first + extra);
    const pages = single || first === last ? `${first}` : `${first}-${last}`;
    const text = single ? `${first}` : `${first}-${last}`;
    return {
      text: `${before}${text}${after}`,
      meaning: 'valid',
      pages,
      count: single ? 1 : last - first + 1,
    };
  });

const invalidItem: fc.Arbitrary<RangeItem> = fc
  .constantFrom(
    '0',
    `${PAGES + 1}`,
    `1-${PAGES + 1}`,
    '3-2',
    '99999999999999999999',
    '1-99999999999999999999',
    '-1',
    '1-',
    '-',
    '',
    ' ',
    '１',
    '1–3',
    '1—2',
    '1..3',
    '1;2',
    'a',
    '٣',
    '1-2-3',
    '+1',
    '1e0',
    '0x1',
    '1 - 2',
    '1\u00002',
    'all',
  )
  .map((text): RangeItem => ({ text, meaning: 'invalid' }));

/** Leading zeros and Unicode spaces: the contract does not say. */
const eitherItem: fc.Arbitrary<RangeItem> = fc
  .constantFrom('01', '001-002', '\u00a01', '1\u2003', '\ufeff2', '\u20281')
  .map((text): RangeItem => ({ text, meaning: 'either' }));

const rangesArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(validItem, { minLength: 1, maxLength: 6 }) },
  {
    weight: 3,
    arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: validItem }, invalidItem, eitherItem), {
      minLength: 1,
      maxLength: 6,
    }),
  },
  // Around the 100-item limit; rarer, as a hundred parts take seconds to download and read back.
  { weight: 1, arbitrary: fc.array(validItem, { minLength: 99, maxLength: 102 }) },
);

const levelArb = fc.oneof(
  fc.constantFrom('low', 'medium', 'high', undefined),
  fc.constantFrom('LOW', 'High', ' high', 'high ', 'medium\n', 'max', '', '0', '1', 'lów', 'high\u200b'),
  fc.string({ maxLength: 12 }),
);

interface LanguageValue {
  codes: string[];
  separator: string;
}

const languageArb = (): fc.Arbitrary<LanguageValue> =>
  fc.record({
    codes: fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...languages) },
        fc.constantFrom(
          'ENG',
          'Eng',
          'xx',
          'en',
          'english',
          'eng ',
          ' eng',
          'éng',
          'eng\u200b',
          'chi_sim',
          '',
          '_',
          'osd',
        ),
        fc.string({ unit: 'grapheme', maxLength: 6 }),
      ),
      { minLength: 1, maxLength: 9 },
    ),
    separator: fc.constantFrom('+', '+', '+', '+', ',', ' ', '++', '\uff0b'),
  });

type FieldCase =
  | { operation: 'split'; items: RangeItem[] }
  | { operation: 'compress'; level: string | undefined }
  | { operation: 'ocr'; language: LanguageValue | undefined };

const caseArb = (): fc.Arbitrary<FieldCase> =>
  fc.oneof(
    { weight: 3, arbitrary: rangesArb.map((items): FieldCase => ({ operation: 'split', items })) },
    levelArb.map((level): FieldCase => ({ operation: 'compress', level })),
    fc
      .option(languageArb(), { nil: undefined })
      .map((language): FieldCase => ({ operation: 'ocr', language })),
  );

async function checkSplit(items: RangeItem[]): Promise<void> {
  const ranges = items.map((item) => item.text).join(',');
  const res = await ctx.call<SplitResponse>('/api/v1/split', {
    key,
    body: form(file('file', pdf, 'doc.pdf'), field('ranges', ranges)),
  });
  await judge(ctx, 'split', res);
  const meanings = new Set(items.map((item) => item.meaning));
  if (meanings.has('invalid') || items.length > MAX_RANGES) {
    expect(res.status, `ranges ${JSON.stringify(ranges)}`).toBe(400);
  } else if (!meanings.has('either')) {
    expect(res.status, `ranges ${JSON.stringify(ranges)}: ${res.bytes.toString('utf8').slice(0, 300)}`).toBe(
      200,
    );
    const parts = res.json.data.parts;
    expect(parts.map((part) => part.pages)).toEqual(items.map((item) => item.pages));
    expect(parts.map((part) => part.page_count)).toEqual(items.map((item) => item.count));
  }
}

async function checkCompress(level: string | undefined): Promise<void> {
  const parts = [file('file', pdf, 'doc.pdf')];
  if (level !== undefined) parts.push(field('level', level));
  const res = await ctx.call('/api/v1/compress', { key, body: form(...parts) });
  await judge(ctx, 'compress', res);
  // A field sent empty is read as not sent (openapi.yaml, "Upload limits"): the default level.
  const valid = level === undefined || ['', 'low', 'medium', 'high'].includes(level);
  expect(res.status, `level ${JSON.stringify(level)}`).toBe(valid ? 200 : 400);
}

async function checkOcr(language: LanguageValue | undefined): Promise<void> {
  const raw = language === undefined ? undefined : language.codes.join(language.separator);
  const parts = [file('image', image, 'scan.tif')];
  if (raw !== undefined) parts.push(field('language', raw));
  const res = await ctx.call<OcrResponse>('/api/v1/ocr', { key, body: form(...parts) });
  await judge(ctx, 'ocr', res);
  // openapi.yaml `ocr` `language`: known codes joined by `+`, at most 5 different; order and repeats
  // do not matter, and the set is answered sorted, each code once.
  const codes = raw === undefined ? ['eng'] : raw.split('+');
  const set = [...new Set(codes)].sort();
  const valid = codes.every((code) => languages.includes(code)) && set.length <= MAX_LANGUAGES;
  expect(res.status, `language ${JSON.stringify(raw)}: ${res.bytes.toString('utf8').slice(0, 300)}`).toBe(
    valid ? 200 : 400,
  );
  if (valid) expect(res.json.data.language).toBe(set.join('+'));
}

it(
  'answers generated ranges, levels and languages as the contract says, never a 500',
  async () => {
    const before = await listFiles(ctx.server);
    await fuzz('src/fuzz/fields.test.ts', caseArb(), async (value) => {
      if (value.operation === 'split') await checkSplit(value.items);
      if (value.operation === 'compress') await checkCompress(value.level);
      if (value.operation === 'ocr') await checkOcr(value.language);
      await expectHealthy(ctx);
    });
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  },
  fuzzTimeoutMs(),
);
