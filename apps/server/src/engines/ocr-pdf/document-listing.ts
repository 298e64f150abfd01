// What the chunked reader (chunked-reader.ts) must know of a whole document before it cuts it, from
// one qpdf listing of its objects and pages: whether a join of chunks would keep it whole, and how many
// pixels the engine will read on each page, which sizes the chunks (chunk-sizes.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  dictionary,
  type Json,
  type Objects,
  pageSize,
  repairNumbers,
  resolveObject,
} from '../pdf/qpdf-json.js';
import { type QpdfRun, qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';
import { MIN_DPI, VECTOR_DPI } from './raster-resolution.js';

export interface DocumentListing {
  /**
   * Nothing a join from chunks would break: no page carries annotations, and the catalog holds no
   * outline, form, names or structure tree, which would be left pointing at pages no longer there.
   */
  plain: boolean;
  /**
   * Per page, in page order, the pixels OCR will read: its images', or a raster of the whole page at
   * the least resolution OCR draws one at, whichever is more; a 300 dpi raster of a page without
   * images (raster-resolution.ts).
   */
  pagePixels: number[];
}

/** qpdf's JSON of the pages with their images, and every object by name. */
interface QpdfJson {
  pages: { object: string; images: { width: number; height: number }[] }[];
  qpdf: [unknown, Objects];
}

/** US Letter, for a page whose size cannot be read here (the readers will find out). */
const LETTER_POINTS = 612 * 792;

/** The listing of the PDF at `path`, or undefined when qpdf cannot list it. */
export async function listDocument(path: string, run: QpdfRun): Promise<DocumentListing | undefined> {
  // To a file: a tool's captured output is capped, and a long document's objects run to megabytes.
  const listing = join(run.cwd, 'listing.json');
  const result = await runQpdf(
    ['--json=2', '--json-key=pages', '--json-key=qpdf', '--json-stream-data=none', path, listing],
    run,
  );
  if (!qpdfSucceeded(result)) return undefined;
  const { pages, qpdf } = JSON.parse(repairNumbers(await readFile(listing, 'utf8'))) as QpdfJson;
  const [, objects] = qpdf;
  const dict = (value: Json | undefined) => dictionary(resolveObject(value, objects));
  const points = (pageRef: string) => {
    const size = pageSize(pageRef, objects);
    const area = size === undefined ? 0 : size.width * size.height;
    return area > 0 ? area : LETTER_POINTS;
  };
  const pagePixels = pages.map(({ object, images }) => {
    const squareInches = points(object) / 72 ** 2;
    if (images.length === 0) return squareInches * VECTOR_DPI ** 2;
    const imagePixels = images.reduce((sum, image) => sum + image.width * image.height, 0);
    return Math.max(imagePixels, squareInches * MIN_DPI ** 2);
  });
  const plain = () => {
    const catalog = dict(dict(objects.trailer?.value)?.['/Root']);
    if (catalog === undefined) return false;
    if (['/AcroForm', '/StructTreeRoot', '/Names', '/Dests'].some((key) => key in catalog)) return false;
    // Many scanners write an empty outline.
    if (dict(catalog['/Outlines'])?.['/First'] !== undefined) return false;
    return pages.every(({ object }) => {
      const annotations = resolveObject(dict(object)?.['/Annots'], objects);
      return annotations === undefined || (Array.isArray(annotations) && annotations.length === 0);
    });
  };
  return { plain: plain(), pagePixels };
}
