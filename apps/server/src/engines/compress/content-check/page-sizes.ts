// How large the sampled pages are, so the content check can render every page at one bounded
// size. A resolution suits ordinary pages (compression downsamples to a resolution), but PDF
// pages reach 200 inches and /UserUnit multiplies that: OCRmyPDF's poster.pdf (UserUnit 10) rendered
// at 40 dpi was a 200 MB raster and took 15 s. The sizes come from the structure qpdf read
// (pdf-structure.ts) or, without qpdf, from Ghostscript's new interpreter, which reports page geometry
// with -dPDFINFO (Ghostscript 9.56+); `longestSides` reads its lines, e.g.
//   Page 1 UserUnit: 10.000000  MediaBox: [0 0 1800 3600]
//   Page 2 MediaBox: [0 0 792 612] CropBox: [10 10 400 600]    Rotate = 90

/** The longest side, in points after /UserUnit, of each page Ghostscript reported. */
export function longestSides(pdfInfo: string): Map<number, number> {
  const sides = new Map<number, number>();
  const line = /^Page (\d+)\b(?:.*?UserUnit: ([\d.]+))?.*?MediaBox: \[([^\]]*)\]/gm;
  for (const [, page, userUnit, box] of pdfInfo.matchAll(line)) {
    const [x1, y1, x2, y2] = (box ?? '').trim().split(/\s+/).map(Number);
    if ([x1, y1, x2, y2].some((n) => n === undefined || !Number.isFinite(n))) continue;
    const unit = userUnit === undefined ? 1 : Number(userUnit);
    const longest = Math.max(
      Math.abs((x2 as number) - (x1 as number)),
      Math.abs((y2 as number) - (y1 as number)),
    );
    sides.set(Number(page), longest * (Number.isFinite(unit) && unit > 0 ? unit : 1));
  }
  return sides;
}

export interface RenderBounds {
  /** The resolution for ordinary pages. */
  dpi: number;
  /** The smallest sampled page is rendered at least this long, so it still has pixels to compare. */
  minSidePx: number;
  /** No sampled page is rendered longer than this, so memory and time stay bounded. */
  maxSidePx: number;
}

/**
 * The resolution to render `pages` at: `dpi`, raised until the smallest page's longest side reaches
 * `minSidePx` (ImageMagick's 16-pixel images at 300 ppi make 0.05-inch pages: 2x2 pixels at 40 dpi,
 * on which a dropped image cannot be seen), then lowered wherever a page would exceed `maxSidePx`.
 * Pages Ghostscript did not report are assumed ordinary.
 */
export function renderDpi(
  sides: ReadonlyMap<number, number>,
  pages: readonly number[],
  bounds: RenderBounds,
): number {
  const reported = pages.flatMap((page) => {
    const side = sides.get(page);
    return side === undefined || side <= 0 ? [] : [side / 72];
  });
  if (reported.length === 0) return bounds.dpi;
  const [shortest, longest] = [Math.min(...reported), Math.max(...reported)];
  const dpi = Math.min(Math.max(bounds.dpi, bounds.minSidePx / shortest), bounds.maxSidePx / longest);
  // Ghostscript takes fractional resolutions; two decimals keep the command line readable.
  return Math.floor(dpi * 100) / 100;
}
