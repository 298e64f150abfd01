// The content judge's floors, on both sides ("cover them with tests on both sides"), with
// rasters made here so the judge is tested apart from the server it judges.
import { describe, expect, it } from 'vitest';
import {
  CONTENT_FLOORS,
  compareContent,
  type PageContent,
  type Raster,
  type Rendition,
} from './pdf-content.js';

const WIDTH = 120;
const HEIGHT = 160;

/** A page of `lines` rows of dense 1-pixel strokes, like small text, starting `shift` pixels down. */
function textPage(lines: number, shift = 0): Raster {
  const pixels = new Uint8Array(WIDTH * HEIGHT).fill(255);
  for (let line = 0; line < lines; line++) {
    const top = 10 + shift + line * 8;
    for (let y = top; y < top + 5; y++) {
      for (let x = 10; x < WIDTH - 10; x++) if ((x + y) % 3 === 0) pixels[y * WIDTH + x] = 0;
    }
  }
  return { width: WIDTH, height: HEIGHT, pixels };
}

function rendition(raster: Raster, words: string[], images = 0): Rendition {
  const page: PageContent = { raster, words: new Set(words), images };
  return { pageCount: 1, pages: new Map([[1, page]]) };
}

const WORDS = Array.from({ length: 40 }, (_, i) => `word${i}`);

describe('compareContent', () => {
  // [name, output, losses expected]
  const table: [string, Rendition, boolean][] = [
    ['the same page', rendition(textPage(12), WORDS, 1), false],
    ['the page a pixel lower (a lossless re-encode)', rendition(textPage(12, 1), WORDS, 1), false],
    ['more images than before', rendition(textPage(12), WORDS, 2), false],
    ['a blank page', rendition(textPage(0), WORDS, 1), true],
    ['one line of twelve left (most marks gone)', rendition(textPage(1), WORDS, 1), true],
    ['an image fewer', rendition(textPage(12), WORDS, 0), true],
    ['words lost', rendition(textPage(12), WORDS.slice(0, 37), 1), true],
    ['words kept at the floor', rendition(textPage(12), WORDS.slice(0, 38), 1), false],
  ];
  it.each(table)('%s: losses reported %s', (_name, output, lost) => {
    const verdict = compareContent(rendition(textPage(12), WORDS, 1), output, [[1, 1]]);
    expect(verdict.losses.length > 0, verdict.losses.join('; ')).toBe(lost);
  });

  it('keeps its floors in one place', () => {
    expect(CONTENT_FLOORS).toEqual({ psnrDb: 20, wordsKept: 0.95, marksKept: 0.5 });
  });

  it('judges a sparse page by its marks, which PSNR alone lets through', () => {
    const sparse = textPage(1);
    const verdict = compareContent(rendition(sparse, []), rendition(textPage(0), []), [[1, 1]]);
    expect(verdict.pages[0]?.psnr).toBeGreaterThan(CONTENT_FLOORS.psnrDb);
    expect(verdict.losses).toEqual([expect.stringMatching(/0 of \d+ marks kept/)]);
  });
});
