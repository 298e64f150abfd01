import { describe, expect, it } from 'vitest';
import {
  CONTENT_FLOORS,
  charactersBelowFloor,
  imagesBelowFloor,
  occurrencesBelowFloor,
  type PageScore,
  pagesBelowFloor,
  storedStreamsChanged,
  structureBelowFloor,
  tilesBelowFloor,
  type WordScore,
  wordsBelowFloor,
} from './floors.js';
import type { PdfStructure, StoredStream } from './pdf-structure.js';
import type { TileSums } from './pgm.js';

const pages = (...psnrs: number[]): PageScore[] =>
  psnrs.map((psnrDb, index) => ({
    page: index + 1,
    psnrDb,
    marks: { reference: 100, candidate: 100 },
    tiles: [],
    tileColumns: 0,
  }));
const marks = (reference: number, candidate: number): PageScore[] => [
  { page: 1, psnrDb: 45, marks: { reference, candidate }, tiles: [], tileColumns: 0 },
];
const words = (kept: number, reference: number): WordScore => ({ kept, reference });

// Both sides of each floor: legitimate compressions measured 21-59 dB at this render size,
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

/** A tile of `pixels` pixels: `reference` and `candidate` list its pixel values, blurred, as pgm.ts sums them. */
function tile(reference: readonly number[], candidate: readonly number[]): TileSums {
  const sum = (values: readonly number[], of: (value: number, index: number) => number) =>
    values.reduce((total, value, index) => total + of(value, index), 0);
  const paper = reference.map((value, index) => value >= 250 || (candidate[index] as number) >= 250);
  const error = (value: number, index: number) => (value - (candidate[index] as number)) ** 2;
  return {
    pixels: reference.length,
    squaredError: sum(reference, error),
    reference: sum(reference, (value) => value),
    candidate: sum(candidate, (value) => value),
    referenceSquares: sum(reference, (value) => value * value),
    candidateSquares: sum(candidate, (value) => value * value),
    products: sum(reference, (value, index) => value * (candidate[index] as number)),
    paperPixels: paper.filter(Boolean).length,
    paperSquaredError: sum(reference, (value, index) => (paper[index] ? error(value, index) : 0)),
    referenceMarks: reference.filter((value) => value < 200).length,
    candidateMarks: candidate.filter((value) => value < 200).length,
  };
}

/** One page of two tiles, the second given; the page as a whole scores 45 dB and keeps its marks. */
const withTile = (second: TileSums): PageScore[] => {
  const white = new Array<number>(second.pixels).fill(255);
  return [
    {
      page: 1,
      psnrDb: 45,
      marks: { reference: 100, candidate: 100 },
      tiles: [tile(white, white), second],
      tileColumns: 2,
    },
  ];
};

/** 1600 pixels of paper with `ink` of them drawn at `level` in the reference, and `kept` of those in the candidate. */
const inked = (ink: number, level: number, kept: number): TileSums => {
  const reference = Array.from({ length: 1600 }, (_, index) => (index < ink ? level : 255));
  const candidate = Array.from({ length: 1600 }, (_, index) => (index < kept ? level : 255));
  return tile(reference, candidate);
};

/** A photo-like tile: a ramp of greys, and a high-contrast one, a checkerboard of black and white. */
const ramp = Array.from({ length: 1600 }, (_, index) => 40 + ((index * 7) % 160));
const checkers = Array.from({ length: 1600 }, (_, index) => (index % 2 ? 0 : 255));
/** A tile 60% paper, the rest a pattern of two greys, and that pattern with its greys swapped. */
const pattern = (swapped: boolean) =>
  Array.from({ length: 1600 }, (_, index) => (index < 960 ? 255 : (index % 2 === 0) !== swapped ? 100 : 200));

describe('tilesBelowFloor', () => {
  // [name, { given: the second tile, want: part of the refusal, or undefined when it passes }]
  const table: [string, { given: TileSums; want: RegExp | undefined }][] = [
    ['a tile unchanged', { given: inked(120, 0, 120), want: undefined }],
    [
      'a short rule gone from paper: 40 pixels of black',
      {
        given: inked(40, 0, 0),
        want: /^page 1's tile 2,1 \(0\.5 inch square, across then down\) changed where it shows paper: 16\.0 dB, floor 24 dB$/,
      },
    ],
    [
      'a photo re-encoded: 4 levels of noise, alternately up and down',
      {
        given: tile(
          ramp,
          ramp.map((value, index) => value + (index % 2 ? 4 : -4)),
        ),
        want: undefined,
      },
    ],
    [
      'a photo of little contrast gone flat: within the tile floor',
      { given: tile(ramp, new Array<number>(1600).fill(119.5)), want: undefined },
    ],
    [
      'a photo of high contrast gone flat',
      {
        given: tile(checkers, new Array<number>(1600).fill(127.5)),
        want: /differs from the input: 6\.0 dB, floor 10 dB$/,
      },
    ],
    [
      'shapes changed where the tile is mostly paper, the paper untouched',
      {
        given: tile(pattern(false), pattern(true)),
        want: /changed shape: similarity 0\.\d\d, floor 0\.5$/,
      },
    ],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const verdict = tilesBelowFloor(withTile(given));
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
    infoIsPageTree: false,
    pageSides: [612, 612],
    streams: [[], []],
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

describe('storedStreamsChanged', () => {
  const stream = (at: string, filters: string, length: number, pixels?: string): StoredStream => ({
    at,
    filters,
    length,
    ...(pixels && { pixels }),
  });
  const structure = (...streams: StoredStream[]): PdfStructure => ({
    fields: [],
    annotations: [[]],
    attachments: [],
    outlines: [],
    compositeFonts: false,
    infoIsPageTree: false,
    pageSides: [612],
    streams: [streams],
  });
  const input = structure(
    stream('contents 0', '"/FlateDecode"', 1200),
    stream('/Im1', '"/DCTDecode"', 50_000, '640x480'),
    stream('/Fm0', 'null', 300),
    stream('/Fm0 /Im2', '["/ASCII85Decode","/LZWDecode"]', 900, '8x8'),
  );
  // [name, { given: the output's streams, want: refusal or undefined }]
  const table: [string, { given: PdfStructure; want: RegExp | undefined }][] = [
    ['stored as they were', { given: input, want: undefined }],
    [
      'unfiltered and generalized filters deflated by qpdf',
      {
        given: structure(
          stream('contents 0', '"/FlateDecode"', 1200),
          stream('/Im1', '"/DCTDecode"', 50_000, '640x480'),
          stream('/Fm0', '"/FlateDecode"', 120),
          stream('/Fm0 /Im2', '"/FlateDecode"', 700, '8x8'),
        ),
        want: undefined,
      },
    ],
    [
      'content of another length under the same filter',
      {
        given: structure(stream('contents 0', '"/FlateDecode"', 1190), ...(input.streams[0] ?? []).slice(1)),
        want: /^page 1's contents 0 changed: "\/FlateDecode" 1200 bytes before, "\/FlateDecode" 1190 bytes after$/,
      },
    ],
    [
      'a JPEG turned into Flate: qpdf never re-encodes one',
      {
        given: structure(
          stream('contents 0', '"/FlateDecode"', 1200),
          stream('/Im1', '"/FlateDecode"', 800, '640x480'),
        ),
        want: /page 1's \/Im1 changed/,
      },
    ],
    [
      'an image resized',
      {
        given: structure(
          stream('contents 0', '"/FlateDecode"', 1200),
          stream('/Im1', '"/DCTDecode"', 50_000, '320x240'),
        ),
        want: /\/Im1 changed/,
      },
    ],
    [
      'an image no longer drawn',
      {
        given: structure(stream('contents 0', '"/FlateDecode"', 1200)),
        want: /page 1 no longer draws its \/Im1$/,
      },
    ],
  ];
  it.each(table)('%s', (_name, { given, want }) => {
    const verdict = storedStreamsChanged(input, given);
    if (want === undefined) expect(verdict).toBeUndefined();
    else expect(verdict).toMatch(want);
  });
});

describe('occurrencesBelowFloor', () => {
  it('passes as many of every character', () => expect(occurrencesBelowFloor([])).toBeUndefined());
  it('refuses one hyphen fewer', () =>
    expect(occurrencesBelowFloor([{ character: '-', kept: 11, had: 12 }])).toBe(
      `has fewer of 1 of the input's characters ("-" 11 of 12), floor: every one`,
    ));
});
