// Where an image goes on its page (openapi.yaml `imagesToPdf`: `page_size`, `orientation`, `fit`,
// `margin_mm`), in PDF points (1/72 inch), from the image's upright size in points at its resolution.
import type { PageSize } from '@pdn/api-types';
import type { PageLayout } from './types.js';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PagePlacement {
  page: { width: number; height: number };
  /** Where the upright image is drawn; with `cover` it overflows `clip`. */
  image: Rect;
  /** The area inside the margins, drawn into only (`cover`). */
  clip?: Rect | undefined;
}

/** PDF's largest page side, 200 inches (PDF 32000-1 Annex C.2, as Acrobat enforces it). */
export const MAX_PAGE_POINTS = 14_400;

const POINTS_PER_MM = 72 / 25.4;

/** Portrait width and height of each paper, in points (ISO 216 in millimetres, ANSI in inches). */
const PAPER: Readonly<Record<Exclude<PageSize, 'image'>, readonly [number, number]>> = {
  a3: [297 * POINTS_PER_MM, 420 * POINTS_PER_MM],
  a4: [210 * POINTS_PER_MM, 297 * POINTS_PER_MM],
  a5: [148 * POINTS_PER_MM, 210 * POINTS_PER_MM],
  letter: [612, 792],
  legal: [612, 1008],
};

/** The page and the image's place on it for an upright image `width` x `height` points. */
export function placeImage(width: number, height: number, layout: PageLayout): PagePlacement {
  const margin = layout.marginMm * POINTS_PER_MM;
  if (layout.pageSize === 'image') {
    // An image that would make a page over PDF's limit is shown smaller, its proportions kept.
    const room = MAX_PAGE_POINTS - 2 * margin;
    const scale = Math.min(1, room / width, room / height);
    const image = { x: margin, y: margin, width: width * scale, height: height * scale };
    return { page: { width: image.width + 2 * margin, height: image.height + 2 * margin }, image };
  }
  const [short, long] = PAPER[layout.pageSize];
  const landscape = layout.orientation === 'landscape' || (layout.orientation === 'auto' && width > height);
  const page = landscape ? { width: long, height: short } : { width: short, height: long };
  const area = { x: margin, y: margin, width: page.width - 2 * margin, height: page.height - 2 * margin };
  const fits = [area.width / width, area.height / height];
  const scale = layout.fit === 'contain' ? Math.min(...fits) : Math.max(...fits);
  const shown = { width: width * scale, height: height * scale };
  const image = {
    x: area.x + (area.width - shown.width) / 2,
    y: area.y + (area.height - shown.height) / 2,
    ...shown,
  };
  return layout.fit === 'cover' ? { page, image, clip: area } : { page, image };
}
