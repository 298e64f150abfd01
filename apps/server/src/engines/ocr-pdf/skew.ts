// How far a page's lines are tilted (`deskew` with the native tools), read from tesseract's
// hOCR: every line's `baseline <slope> <offset>` (slope in the drawn page's pixels, y downwards), the
// median over the page so a stray line or a table rule does not decide it. No image analysis of our own:
// tesseract has already found the lines.

/** Below this a page counts as straight: OCRmyPDF (Leptonica) makes no correction this small either. */
export const STRAIGHT_DEGREES = 0.1;

/**
 * The page's tilt in degrees, positive when its lines run down to the right as drawn; undefined when
 * tesseract found no line to measure.
 */
export function skewDegrees(hocr: string): number | undefined {
  const slopes = [...hocr.matchAll(/baseline (-?\d+(?:\.\d+)?) -?\d+(?:\.\d+)?/g)]
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
  if (slopes.length === 0) return undefined;
  const middle = slopes.length / 2;
  const median = Number.isInteger(middle)
    ? ((slopes[middle - 1] ?? 0) + (slopes[middle] ?? 0)) / 2
    : (slopes[Math.floor(middle)] ?? 0);
  return (Math.atan(median) * 180) / Math.PI;
}
