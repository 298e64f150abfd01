import { describe, expect, it } from 'vitest';
import { CHUNK_TARGET_MS, DEFAULT_PACE, measuredPace, nextChunkPages } from './chunk-sizes.js';

/** A 200 dpi US Letter scan's pixels. */
const SCAN_200 = 1700 * 2200;

/** Every chunk's pages, cutting `pixels` at a steady pace. */
function chunks(pixels: readonly number[], pace: number, readers: number): number[] {
  const sizes: number[] = [];
  for (let next = 0; next < pixels.length; ) {
    const size = nextChunkPages(pixels.slice(next), { pace, readers, targetMs: CHUNK_TARGET_MS });
    sizes.push(size);
    next += size;
  }
  return sizes;
}

describe('nextChunkPages', () => {
  it('reads a document estimated within one chunk whole, in one run', () => {
    // Ten pages at the pace assumed before any is read: 9.35 s on two readers.
    expect(chunks(Array(10).fill(SCAN_200), DEFAULT_PACE, 2)).toEqual([10]);
  });

  it('cuts a longer document into as few equal chunks as the target allows, in whole rounds', () => {
    // 50 pages at 200 ms a megapixel on two readers: 18.7 s, so two chunks, not a 10 s one and a short tail.
    expect(chunks(Array(50).fill(SCAN_200), 200, 2)).toEqual([26, 24]);
    // The same on one reader: 37.4 s in four chunks.
    expect(chunks(Array(50).fill(SCAN_200), 200, 1)).toEqual([13, 12, 13, 12]);
  });

  it('sizes chunks by the pixels of their pages, not their count', () => {
    const pixels = [...Array(8).fill(4 * SCAN_200), ...Array(32).fill(SCAN_200 / 4)];
    const sizes = chunks(pixels, 200, 2);
    expect(sizes.reduce((sum, n) => sum + n, 0)).toBe(40);
    // The large pages first: fewer of them in the first chunk than in the last.
    expect(sizes[0]).toBeLessThan(sizes.at(-1) ?? 0);
  });

  it('takes at least one round of the readers, however long a page', () => {
    expect(nextChunkPages([40e6, 40e6, 40e6], { pace: DEFAULT_PACE, readers: 2, targetMs: 1000 })).toBe(2);
  });
});

describe('measuredPace', () => {
  it('is milliseconds per megapixel of one reader', () => {
    // Ten 200 dpi pages in 3.74 s on two readers.
    expect(measuredPace(3740, 10 * SCAN_200, 2)).toBeCloseTo(200);
  });

  it('is never believed much faster than assumed: the chunk read may have skipped its pages', () => {
    expect(measuredPace(10, 10 * SCAN_200, 2)).toBe(DEFAULT_PACE / 4);
  });
});
