// The resolution a page is drawn at for OCR: its images' own, so a 200 dpi scan is read at
// 200 dpi and never resampled; 300 dpi for a page without images (vector text: tesseract reads best
// at 300). Kept within what tesseract reads well and lowered until the page's raster fits the pixel
// cap, so a poster-sized page costs what the server allows and no more.

/** Below this tesseract misreads small print; OCRmyPDF raises scans below 70 ppi the same way. */
export const MIN_DPI = 150;
/** Above this OCR gains nothing and the raster grows with the square. */
export const MAX_DPI = 600;
export const VECTOR_DPI = 300;

/** `width` and `height` in points; the answer in whole dots per inch, at least 1. */
export function rasterDpi(
  width: number,
  height: number,
  imagePpi: number | undefined,
  maxPixels: number,
): number {
  const wanted = Math.min(MAX_DPI, Math.max(MIN_DPI, Math.round(imagePpi ?? VECTOR_DPI)));
  const pixelsAt = (dpi: number) => ((width * dpi) / 72) * ((height * dpi) / 72);
  if (pixelsAt(wanted) <= maxPixels) return wanted;
  return Math.max(1, Math.floor(Math.sqrt(maxPixels / ((width / 72) * (height / 72)))));
}
