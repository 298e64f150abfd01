// How the sampled pages are drawn where they draw photos, whose decoding is most of a render's cost:
// in colour, and a candidate's in two processes side by side. Only how they are drawn changes: every
// sampled page is drawn and compared alike.
//
// pdftoppm draws photos in colour about twice as fast as in grey (a 4-megapixel camera JPEG page at 40
// dpi: 45 ms of CPU against 85; a 300 dpi scanned page 30 ms against 90), text pages about 15% slower
// (10 text pages: 48 ms against 42), so pages are drawn in colour where they draw photos (pgm.ts reads
// the colour as poppler's grey). A renderer's start costs about 10-12 ms of CPU: two processes that each
// decode a few megapixels finish in about half the time of one, on the second core where it is spare
// (../job-lanes.ts), for one start more.

/** Image pixels the sampled pages must draw in all for them to be drawn in colour. */
export const COLOUR_FROM_PIXELS = 1_000_000;

/** Whether the sampled `pages` draw enough photo pixels to be drawn in colour. */
export function drawInColour(pages: readonly number[], imagePixels: (page: number) => number): boolean {
  return pages.reduce((sum, page) => sum + imagePixels(page), 0) >= COLOUR_FROM_PIXELS;
}

/** Image pixels each of the two groups must decode for a second process to pay for its start. */
export const SPLIT_FROM_PIXELS = 2_000_000;

/**
 * `pages` (ascending) as one group, or as two consecutive groups where the images they draw split into
 * two shares of at least SPLIT_FROM_PIXELS each, as even as the page order allows.
 */
export function renderGroups(pages: readonly number[], imagePixels: (page: number) => number): number[][] {
  const pixels = pages.map(imagePixels);
  const total = pixels.reduce((sum, count) => sum + count, 0);
  let best: { at: number; smaller: number } | undefined;
  let before = 0;
  for (let at = 1; at < pages.length; at += 1) {
    before += pixels[at - 1] as number;
    const smaller = Math.min(before, total - before);
    if (smaller >= SPLIT_FROM_PIXELS && (best === undefined || smaller > best.smaller))
      best = { at, smaller };
  }
  return best === undefined ? [[...pages]] : [pages.slice(0, best.at), pages.slice(best.at)];
}
