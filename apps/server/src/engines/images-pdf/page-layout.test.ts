import { describe, expect, it } from 'vitest';
import { MAX_PAGE_POINTS, type PagePlacement, placeImage } from './page-layout.js';
import type { PageLayout } from './types.js';

const layout = (given: Partial<PageLayout>): PageLayout => ({
  pageSize: 'image',
  orientation: 'auto',
  fit: 'contain',
  marginMm: 0,
  ...given,
});
const MM = 72 / 25.4;
const A4 = [210 * MM, 297 * MM] as const;

/** Rounded to hundredths of a point, for readable tables. */
function rounded(placed: PagePlacement): PagePlacement {
  const r = (value: number) => Math.round(value * 100) / 100;
  const rect = (box: PagePlacement['image']) => ({
    x: r(box.x),
    y: r(box.y),
    width: r(box.width),
    height: r(box.height),
  });
  return {
    page: { width: r(placed.page.width), height: r(placed.page.height) },
    image: rect(placed.image),
    ...(placed.clip === undefined ? {} : { clip: rect(placed.clip) }),
  };
}

describe('placeImage', () => {
  it.each<[string, [number, number], Partial<PageLayout>, PagePlacement]>([
    [
      'the image size',
      [200, 100],
      {},
      { page: { width: 200, height: 100 }, image: { x: 0, y: 0, width: 200, height: 100 } },
    ],
    [
      'the image size and a 10 mm margin',
      [200, 100],
      { marginMm: 10 },
      { page: { width: 256.69, height: 156.69 }, image: { x: 28.35, y: 28.35, width: 200, height: 100 } },
    ],
    [
      'an image over PDF page limit, shown smaller',
      [28_800, 7_200],
      {},
      {
        page: { width: MAX_PAGE_POINTS, height: 3600 },
        image: { x: 0, y: 0, width: MAX_PAGE_POINTS, height: 3600 },
      },
    ],
    [
      'A4 for a tall image, contained and centred',
      [100, 200],
      { pageSize: 'a4' },
      { page: { width: 595.28, height: 841.89 }, image: { x: 87.17, y: 0, width: 420.94, height: 841.89 } },
    ],
    [
      'A4 turned for a wide image',
      [200, 100],
      { pageSize: 'a4' },
      { page: { width: 841.89, height: 595.28 }, image: { x: 0, y: 87.17, width: 841.89, height: 420.94 } },
    ],
    [
      'Letter portrait for a wide image, covering inside 10 mm margins',
      [200, 100],
      { pageSize: 'letter', orientation: 'portrait', fit: 'cover', marginMm: 10 },
      {
        page: { width: 612, height: 792 },
        image: { x: -429.31, y: 28.35, width: 1470.61, height: 735.31 },
        clip: { x: 28.35, y: 28.35, width: 555.31, height: 735.31 },
      },
    ],
  ])('%s', (_, [width, height], given, want) => {
    expect(rounded(placeImage(width, height, layout(given)))).toEqual(rounded(want));
  });

  it('keeps A4 portrait for a square image under auto', () => {
    expect(placeImage(100, 100, layout({ pageSize: 'a4' })).page).toEqual({ width: A4[0], height: A4[1] });
  });
});
