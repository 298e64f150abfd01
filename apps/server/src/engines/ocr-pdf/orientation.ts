// Which way up a page is (`rotate`): tesseract's orientation and script detection
// (`--psm 0 -l osd`, Debian's tesseract-ocr-osd), read as OCRmyPDF reads it.

/** OCRmyPDF's `--rotate-pages-threshold` default: below this confidence a page is left as it is. */
export const ROTATE_THRESHOLD = 14;

/**
 * The page's new /Rotate from OSD's report (`Orientation in degrees: 270`, counter-clockwise, and
 * `Orientation confidence: 5.3`), or undefined when it stays as it is. OCRmyPDF's rule:
 * (rotation - orientation) mod 360 when confident enough.
 */
export function correctedRotation(osd: string, rotation: number): number | undefined {
  const orientation = Number(/Orientation in degrees:\s*(\d+)/.exec(osd)?.[1] ?? 0);
  const confidence = Number(/Orientation confidence:\s*([\d.]+)/.exec(osd)?.[1] ?? 0);
  if (orientation % 360 === 0 || confidence < ROTATE_THRESHOLD) return undefined;
  return (((rotation - orientation) % 360) + 360) % 360;
}
