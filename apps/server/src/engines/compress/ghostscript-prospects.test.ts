import { describe, expect, it } from 'vitest';
import type { CompressionLevel } from '../types.js';
import type { PdfStructure, StoredStream } from './content-check/pdf-structure.js';
import {
  EVERY_IMAGE_KEPT,
  ghostscriptFloorBytes,
  JBIG2_AS_CCITT,
  NO_IMAGE_KEPT,
  PDFWRITE_FLOOR_BYTES,
} from './ghostscript-prospects.js';
import type { ImageReadings } from './image-readings.js';

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
const contents: StoredStream = { at: 'contents 0', object: '3 0', filters: '"/FlateDecode"', length: 5000 };
// A 300 dpi Letter scan: 2550 x 3300 pixels.
const jbig2: StoredStream = {
  at: '/Im0',
  object: '4 0',
  filters: '"/JBIG2Decode"',
  length: 70_000,
  pixels: '2550x3300',
};
const jpeg: StoredStream = { ...jbig2, at: '/Im1', filters: '"/DCTDecode"', length: 50_000 };
const g4: StoredStream = { ...jbig2, at: '/Im2', filters: '"/CCITTFaxDecode"', ccittK: -1 };
const jpegUnderFlate: StoredStream = { ...jpeg, filters: '["/FlateDecode","/DCTDecode"]', length: 17_000 };
const floor = PDFWRITE_FLOOR_BYTES;

/** Readings of an input whose every image is drawn at `ppi`, its JPEGs under Flate `jpegBytes` long. */
const drawnAt = (ppi: number | undefined, jpegBytes?: number): ImageReadings => ({
  ppi: () => ppi,
  jpegBytes: () => jpegBytes,
});
const at300 = drawnAt(300);

// [name, { given: the input's structure, the level and the images' readings, want: the floor under Ghostscript's output }]
const table: [string, { given: [PdfStructure, CompressionLevel, ImageReadings]; want: number }][] = [
  ['text only: pdfwrite blank page', { given: [page(contents), 'medium', at300], want: floor }],
  ['a JBIG2 scan: written as larger CCITT', { given: [page(jbig2), 'high', at300], want: floor + 87_500 }],
  [
    'a JBIG2 scan drawn at 600 dpi: downsampled at medium, so it could shrink',
    { given: [page(jbig2), 'medium', drawnAt(600)], want: floor },
  ],
  [
    'a JBIG2 scan drawn at 600 dpi at low (1-bit images kept to 1200 dpi)',
    { given: [page(jbig2), 'low', drawnAt(600)], want: floor + 87_500 },
  ],
  [
    'a JBIG2 image no page draws: pdfwrite leaves it out',
    { given: [page(jbig2), 'high', drawnAt(undefined)], want: floor },
  ],
  ['a JPEG at low: passed through', { given: [page(jpeg), 'low', at300], want: floor + 50_000 }],
  [
    'a JPEG at low, drawn at 449 dpi: below the threshold',
    { given: [page(jpeg), 'low', drawnAt(449)], want: floor + 50_000 },
  ],
  [
    'a JPEG at low, printed at 450 dpi: maybe just past 1.5 x 300, downsampled',
    { given: [page(jpeg), 'low', drawnAt(450)], want: floor },
  ],
  ['a JPEG at medium: re-encoded, could shrink', { given: [page(jpeg), 'medium', at300], want: floor }],
  [
    'a JPEG under Flate at low: passed through without the layer',
    { given: [page(jpegUnderFlate), 'low', drawnAt(300, 146_075)], want: floor + 146_075 },
  ],
  [
    'a JPEG under Flate whose layer did not inflate: not counted',
    { given: [page(jpegUnderFlate), 'low', at300], want: floor },
  ],
  [
    'a JPEG under Flate at medium: re-encoded',
    { given: [page(jpegUnderFlate), 'medium', drawnAt(300, 146_075)], want: floor },
  ],
  ['CCITT Group 4 at low', { given: [page(g4), 'low', at300], want: floor + 70_000 }],
  [
    'CCITT Group 3 at low: Group 4 could be smaller',
    { given: [page({ ...g4, ccittK: 0 }), 'low', at300], want: floor },
  ],
  ['CCITT Group 4 at high: re-encoded as any 1-bit image', { given: [page(g4), 'high', at300], want: floor }],
  [
    'the same image drawn on two pages counts once',
    {
      given: [{ ...page(jbig2), pageSides: [792, 792], streams: [[jbig2], [jbig2]] }, 'high', at300],
      want: floor + 87_500,
    },
  ],
];

describe('ghostscriptFloorBytes', () => {
  it('counts a JBIG2 image at its CCITT ratio', () => expect(JBIG2_AS_CCITT).toBe(1.25));
  it.each(table)('%s', (_name, { given: [structure, level, read], want }) => {
    expect(ghostscriptFloorBytes(structure, level, read)).toBe(want);
  });
  it('lies between no image kept and every image kept, whatever the readings', () => {
    const everything = page(jbig2, jpeg, g4, jpegUnderFlate);
    for (const level of ['low', 'medium', 'high'] as const) {
      const read = ghostscriptFloorBytes(everything, level, drawnAt(300, 1_000_000));
      expect(ghostscriptFloorBytes(everything, level, EVERY_IMAGE_KEPT)).toBeGreaterThanOrEqual(read);
      expect(ghostscriptFloorBytes(everything, level, NO_IMAGE_KEPT)).toBe(floor);
    }
  });
});
