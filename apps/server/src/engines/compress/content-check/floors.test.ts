import { describe, expect, it } from 'vitest';
import {
  CONTENT_FLOORS,
  charactersBelowFloor,
  imagesBelowFloor,
  type PageScore,
  pagesBelowFloor,
  structureBelowFloor,
  type WordScore,
  wordsBelowFloor,
} from './floors.js';
import type { PdfStructure } from './pdf-structure.js';

const pages = (...psnrs: number[]): PageScore[] =>
  psnrs.map((psnrDb, index) => ({ page: index + 1, psnrDb, marks: { reference: 100, candidate: 100 } }));
const marks = (reference: number, candidate: number): PageScore[] => [
  { page: 1, psnrDb: 45, marks: { reference, candidate } },
];
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
    ['marks kept, and more', { given: marks(400, 560), want: undefined }],
    ['exactly half the marks', { given: marks(400, 200), want: undefined }],
    [
      'a lone glyph dropped at 45 dB',
      { given: marks(400, 199), want: /^page 1 kept 199 of its 400 marks, floor 50%$/ },
    ],
    ['too few marks to judge', { given: marks(15, 0), want: undefined }],
    ['just enough marks', { given: marks(16, 7), want: /kept 7 of its 16 marks/ }],
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

describe('charactersBelowFloor', () => {
  // [name, { given: [characters lost, distinct characters in the input], want: refusal or undefined }]
  const table: [string, { given: [string[], number]; want: RegExp | undefined }][] = [
    ['every character kept', { given: [[], 60], want: undefined }],
    ['no text in the input', { given: [[], 0], want: undefined }],
    [
      'one curly quote remapped',
      { given: [['“'], 60], want: /lost 1 of the input's 60 distinct characters \("“"\), floor 0/ },
    ],
    ['a font re-encoded', { given: [['h', 'e', 'l'], 40], want: /lost 3 of the input's 40/ }],
  ];
  it.each(table)('%s', (_name, { given: [lost, reference], want }) => {
    const verdict = charactersBelowFloor(lost, reference);
    if (want === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(want);
  });
});

describe('structureBelowFloor', () => {
  const input: PdfStructure = {
    fields: ['First Name = "u:Alice"', 'gdpr = "/Off"'],
    annotations: [['/Widget', '/Widget', '/Link'], []],
    attachments: ['foo.txt'],
    outlines: ['Chapter 1', 'Chapter 1.1'],
    compositeFonts: false,
    pageSides: [612, 612],
  };
  // [name, { given: the output's structure, want: refusal or undefined }]
  const table: [string, { given: PdfStructure; want: RegExp | undefined }][] = [
    ['all kept', { given: input, want: undefined }],
    [
      'more in the output, fonts changed',
      {
        given: {
          ...input,
          annotations: [[...(input.annotations[0] ?? []), '/Text'], ['/Link']],
          compositeFonts: true,
        },
        want: undefined,
      },
    ],
    [
      'a value dropped',
      {
        given: { ...input, fields: ['First Name = "u:"', 'gdpr = "/Off"'] },
        want: /form fields lost or changed: First Name = "u:Alice"/,
      },
    ],
    [
      'the form dropped',
      {
        given: { ...input, fields: [], annotations: [['/Link'], []] },
        want: /form fields lost .*; page 1 lost annotations: \/Widget; \/Widget/,
      },
    ],
    [
      'one of two widgets dropped',
      {
        given: { ...input, annotations: [['/Widget', '/Link'], []] },
        want: /^page 1 lost annotations: \/Widget$/,
      },
    ],
    [
      'an annotation moved to another page',
      {
        given: { ...input, annotations: [['/Widget', '/Widget'], ['/Link']] },
        want: /page 1 lost annotations: \/Link/,
      },
    ],
    [
      'the attachment dropped',
      { given: { ...input, attachments: [] }, want: /^attached files lost: foo\.txt$/ },
    ],
    [
      'the outline dropped',
      { given: { ...input, outlines: [] }, want: /^outline entries lost: Chapter 1; Chapter 1\.1$/ },
    ],
    [
      'one of two entries dropped',
      { given: { ...input, outlines: ['Chapter 1'] }, want: /^outline entries lost: Chapter 1\.1$/ },
    ],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const verdict = structureBelowFloor(input, given);
    if (want === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(want);
  });

  it('shortens long entries and lists at most five', () => {
    const titles = ['A'.repeat(500), 'b', 'c', 'd', 'e', 'f', 'g'];
    const verdict = structureBelowFloor({ ...input, outlines: titles }, { ...input, outlines: [] });
    expect(verdict).toBe(`outline entries lost: ${'A'.repeat(79)}…; b; c; d; e; and 2 more`);
  });
});

describe('imagesBelowFloor', () => {
  // [name, { given: [input's images per sampled page, output's], want: refusal or undefined }]
  const table: [string, { given: [[number, number][], [number, number][]]; want: RegExp | undefined }][] = [
    [
      'the same',
      {
        given: [
          [
            [1, 2],
            [5, 0],
          ],
          [
            [1, 2],
            [5, 0],
          ],
        ],
        want: undefined,
      },
    ],
    [
      'more in the output (inline images written as objects)',
      { given: [[[1, 1]], [[1, 3]]], want: undefined },
    ],
    [
      'one dropped',
      {
        given: [
          [
            [1, 2],
            [5, 1],
          ],
          [
            [1, 2],
            [5, 0],
          ],
        ],
        want: /^page 5 draws 0 of the input's 1 images$/,
      },
    ],
    [
      'a page not counted in the output',
      { given: [[[2, 1]], []], want: /^page 2 draws 0 of the input's 1 images$/ },
    ],
  ];
  it.each(table)('%s', (_name, { given: [input, output], want }) => {
    const verdict = imagesBelowFloor(new Map(input), new Map(output));
    if (want === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(want);
  });
});
