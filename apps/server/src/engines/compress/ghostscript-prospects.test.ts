import { describe, expect, it } from 'vitest';
import type { CompressionLevel } from '../types.js';
import type { PdfStructure, StoredStream } from './content-check/pdf-structure.js';
import { ghostscriptFloorBytes, JBIG2_AS_CCITT, PDFWRITE_FLOOR_BYTES } from './ghostscript-prospects.js';

/** One Letter page (792 points high) drawing `streams`. */
const page = (...streams: StoredStream[]): PdfStructure => ({
  fields: [],
  annotations: [[]],
  attachments: [],
  outlines: [],
  compositeFonts: false,
  infoIsPageTree: false,
  pageSides: [792],
  streams: [streams],
});
const contents: StoredStream = { at: 'contents 0', filters: '"/FlateDecode"', length: 5000 };
// A 300 dpi Letter scan: 2550 x 3300 pixels.
const jbig2: StoredStream = { at: '/Im0', filters: '"/JBIG2Decode"', length: 70_000, pixels: '2550x3300' };
const jpeg: StoredStream = { at: '/Im1', filters: '"/DCTDecode"', length: 50_000, pixels: '2550x3300' };
const g4: StoredStream = { ...jbig2, at: '/Im2', filters: '"/CCITTFaxDecode"', ccittK: -1 };
const floor = PDFWRITE_FLOOR_BYTES;

// [name, { given: the input's structure and the level, want: the floor under Ghostscript's output }]
const table: [string, { given: [PdfStructure, CompressionLevel]; want: number }][] = [
  ['text only: pdfwrite blank page', { given: [page(contents), 'medium'], want: floor }],
  ['a JBIG2 scan: written as larger CCITT', { given: [page(jbig2), 'high'], want: floor + 87_500 }],
  [
    'a 600 dpi JBIG2 scan: downsampled at medium, so it could shrink',
    { given: [page({ ...jbig2, pixels: '5100x6600' }), 'medium'], want: floor },
  ],
  [
    'a 600 dpi JBIG2 scan at low (1-bit images kept to 1200 dpi)',
    {
      given: [page({ ...jbig2, pixels: '5100x6600' }), 'low'],
      want: floor + 87_500,
    },
  ],
  ['a JPEG at low: passed through', { given: [page(jpeg), 'low'], want: floor + 50_000 }],
  ['a JPEG at medium: re-encoded, could shrink', { given: [page(jpeg), 'medium'], want: floor }],
  [
    'a JPEG inside Flate: decoded and encoded again, whatever the level',
    { given: [page({ ...jpeg, filters: '["/FlateDecode","/DCTDecode"]' }), 'low'], want: floor },
  ],
  ['CCITT Group 4 at low', { given: [page(g4), 'low'], want: floor + 70_000 }],
  [
    'CCITT Group 3 at low: Group 4 could be smaller',
    { given: [page({ ...g4, ccittK: 0 }), 'low'], want: floor },
  ],
  ['CCITT Group 4 at high: downsampled above 300 dpi', { given: [page(g4), 'high'], want: floor }],
  [
    'the same image drawn on two pages counts once',
    {
      given: [{ ...page(jbig2), pageSides: [792, 792], streams: [[jbig2], [jbig2]] }, 'high'],
      want: floor + 87_500,
    },
  ],
];

describe('ghostscriptFloorBytes', () => {
  it('counts a JBIG2 image at its CCITT ratio', () => expect(JBIG2_AS_CCITT).toBe(1.25));
  it.each(table)('%s', (_name, { given: [structure, level], want }) => {
    expect(ghostscriptFloorBytes(structure, level)).toBe(want);
  });
});
