// The size of each page's image, decided before anything is drawn (openapi.yaml `pdfToImages`): its
// shown size at the resolution asked, or the width asked with its height in proportion, as pdftoppm
// sizes it (rounded up), refused over the plan's pixels per image, naming the page.
import { InvalidInputError } from '../../errors.js';
import type { PageSize } from './page-sizes.js';
import type { ImageScale } from './types.js';

export interface PlannedImage {
  page: number;
  /** The page's shown size, in points. */
  shown: PageSize;
  width: number;
  height: number;
}

/** `cap` is images-pdf's pixelCapOf: the plan's pixels per image, or the server's where lower. */
export function planImage(
  page: number,
  size: PageSize,
  scale: ImageScale,
  cap: { maxPixels: number; holder: string },
  label: string,
): PlannedImage {
  const [width, height] =
    'dpi' in scale
      ? [Math.ceil((size.width * scale.dpi) / 72), Math.ceil((size.height * scale.dpi) / 72)]
      : [scale.width, Math.max(1, Math.ceil((size.height * scale.width) / size.width))];
  if (width * height > cap.maxPixels) {
    const inches = `${(size.width / 72).toFixed(1)} x ${(size.height / 72).toFixed(1)}-inch`;
    const asked = 'dpi' in scale ? `at ${scale.dpi} dpi` : `${scale.width} pixels wide`;
    throw new InvalidInputError(
      `Page ${page} of ${label} (${inches}) drawn ${asked} is ${width}x${height} pixels ` +
        `(${(width * height).toLocaleString('en-US')}); ${cap.holder} images of at most ` +
        `${cap.maxPixels.toLocaleString('en-US')} pixels. Ask a lower \`dpi\` or a \`width\`.`,
    );
  }
  return { page, shown: size, width, height };
}
