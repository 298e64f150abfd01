// Each page's size as a reader shows it (its crop box, turned as its /Rotate says), in points, read on
// the page-tree walk that inspection makes anyway (page-tree-walk.ts, ../../pdf-inspect.ts): a
// renderer's own report (poppler's pdfinfo, Ghostscript's -dPDFINFO) costs a process start, some 20 to
// 50 ms, on a job that draws four photo pages in 150. Known only where poppler and Ghostscript draw the
// same size: boxes of four numbers, a crop box inside the media box, a /Rotate of quarter turns, no
// /UserUnit but 1 (Ghostscript applies it, poppler does not). Any other page, and every file the walk
// leaves to qpdf, leaves the sizes to the renderer; the count is never the worse for it.
import type { PageVisitor } from './page-tree-walk.js';
import type { PdfObjects } from './pdf-objects.js';
import { Doubt, integerOf, type PdfDict, type PdfValue } from './pdf-syntax.js';

export interface ShownSize {
  width: number;
  height: number;
}

type Box = [number, number, number, number];

function numberOf(value: PdfValue | undefined, objects: PdfObjects): number {
  const resolved = objects.resolve(value);
  if (typeof resolved !== 'number' || !Number.isFinite(resolved)) throw new Doubt('not a number');
  return resolved;
}

/** A rectangle (§7.9.5), its corners put in order as readers put them. */
function boxOf(value: PdfValue | undefined, objects: PdfObjects): Box {
  const array = objects.resolve(value);
  if (!Array.isArray(array) || array.length !== 4) throw new Doubt('a box that is not four numbers');
  const [x1, y1, x2, y2] = array.map((item) => numberOf(item, objects)) as Box;
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/** One page's shown size from its attributes (inherited ones filled in); a Doubt where unsure. */
export function shownSize(attributes: PdfDict, objects: PdfObjects): ShownSize {
  // Readers differ on a page without one (poppler draws Letter).
  if (!attributes.has('MediaBox')) throw new Doubt('a page without a /MediaBox');
  const media = boxOf(attributes.get('MediaBox'), objects);
  const crop = attributes.has('CropBox') ? boxOf(attributes.get('CropBox'), objects) : media;
  if (crop[0] < media[0] || crop[1] < media[1] || crop[2] > media[2] || crop[3] > media[3])
    throw new Doubt('a crop box outside the media box');
  const [width, height] = [crop[2] - crop[0], crop[3] - crop[1]];
  if (!(width > 0 && height > 0)) throw new Doubt('an empty page');
  const rotate = attributes.has('Rotate') ? integerOf(objects.resolve(attributes.get('Rotate'))) : 0;
  if (rotate === undefined || rotate % 90 !== 0) throw new Doubt('a /Rotate that is not quarter turns');
  if (attributes.has('UserUnit') && numberOf(attributes.get('UserUnit'), objects) !== 1)
    throw new Doubt('a /UserUnit');
  return rotate % 180 === 0 ? { width, height } : { width: height, height: width };
}

/**
 * Gathers the pages' shown sizes on a walk; `sizes` is undefined from the first page it is unsure of,
 * which does not stop the walk from counting the pages.
 */
export class ShownSizes {
  sizes: ShownSize[] | undefined = [];

  readonly visit: PageVisitor = (attributes, objects) => {
    if (this.sizes === undefined) return;
    try {
      this.sizes.push(shownSize(attributes, objects));
    } catch {
      // A Doubt, or a defect of this reader: either way the renderer reads the sizes itself.
      this.sizes = undefined;
    }
  };
}
