// What the chunked reader (chunked-reader.ts) must know of a whole document before it cuts it, from
// one qpdf listing of its objects and pages: whether a join of chunks would keep it whole, and how many
// pixels the engine will read on each page, which sizes the chunks (chunk-sizes.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
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

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Dict = { [key: string]: Json };

/** qpdf's JSON (format 2) without stream data: its pages with their images, and every object by name. */
interface QpdfJson {
  pages: { object: string; images: { width: number; height: number }[] }[];
  qpdf: [unknown, Record<string, { value?: Json }>];
}

/** US Letter, for a page whose size cannot be read here (the readers will find out). */
const LETTER_POINTS = 612 * 792;
/** A page tree deeper than this is not walked for an inherited size. */
const MAX_TREE_DEPTH = 32;

/** The listing of the PDF at `path`, or undefined when qpdf cannot list it. */
export async function listDocument(path: string, run: QpdfRun): Promise<DocumentListing | undefined> {
  // To a file: a tool's captured output is capped, and a long document's objects run to megabytes.
  const listing = join(run.cwd, 'listing.json');
  const result = await runQpdf(
    ['--json=2', '--json-key=pages', '--json-key=qpdf', '--json-stream-data=none', path, listing],
    run,
  );
  if (!qpdfSucceeded(result)) return undefined;
  const { pages, qpdf } = JSON.parse(await readFile(listing, 'utf8')) as QpdfJson;
  const [, objects] = qpdf;
  // qpdf's JSON names an indirect reference `12 0 R` and the object it points to `obj:12 0 R`.
  const resolved = (value: Json | undefined) =>
    typeof value === 'string' && value.endsWith(' R') ? objects[`obj:${value}`]?.value : value;
  const dict = (value: Json | undefined): Dict | undefined => {
    const found = resolved(value);
    return found !== null && typeof found === 'object' && !Array.isArray(found) ? found : undefined;
  };
  const points = (page: Dict | undefined) => {
    let node = page;
    for (let depth = 0; node !== undefined && depth < MAX_TREE_DEPTH; depth += 1) {
      const box = resolved(node['/MediaBox']);
      const [x0, y0, x1, y1] = Array.isArray(box) ? box : [];
      if (
        typeof x0 === 'number' &&
        typeof y0 === 'number' &&
        typeof x1 === 'number' &&
        typeof y1 === 'number'
      )
        return Math.abs((x1 - x0) * (y1 - y0));
      node = dict(node['/Parent']);
    }
    return LETTER_POINTS;
  };
  const pagePixels = pages.map(({ object, images }) => {
    const squareInches = points(dict(object)) / 72 ** 2;
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
      const annotations = resolved(dict(object)?.['/Annots']);
      return annotations === undefined || (Array.isArray(annotations) && annotations.length === 0);
    });
  };
  return { plain: plain(), pagePixels };
}
