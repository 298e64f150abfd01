// page-assembly.ts's pdf-lib implementation, as tasks of the pdf-lib worker thread (../pdf/pdf-lib-tasks.ts):
// pdf-lib holds the whole document in memory and parses it on the thread it runs on, so never the main one.
import { readFile, writeFile } from 'node:fs/promises';
import { degrees, PDFDocument } from 'pdf-lib';
import { InternalError } from '../../errors.js';
import { type PageEdit, pageInPlace } from './page-assembly.js';

/**
 * Where a layer drawn in the displayed frame of a page with /Rotate `rotation` goes in the page's own
 * space: /Rotate turns the page clockwise for display, so the layer is turned the other way about the
 * corner that becomes the display's lower left.
 */
function layerPlacement(rotation: number, width: number, height: number) {
  switch (rotation) {
    case 90:
      return { x: width, y: 0, rotate: degrees(90) };
    case 180:
      return { x: width, y: height, rotate: degrees(180) };
    case 270:
      return { x: 0, y: height, rotate: degrees(270) };
    default:
      return { x: 0, y: 0, rotate: degrees(0) };
  }
}

const load = async (path: string) => PDFDocument.load(await readFile(path), { updateMetadata: false });

/** `base` with `edits` (ascending pages) applied, written to `output`. */
export async function assemblePages({
  base,
  edits,
  output,
}: {
  base: string;
  edits: readonly PageEdit[];
  output: string;
}): Promise<void> {
  const doc = await load(base);
  for (const edit of edits) {
    const index = edit.page - 1;
    const inPlace = pageInPlace(edit);
    if (inPlace !== undefined) {
      const [copied] = await doc.copyPages(await load(inPlace), [0]);
      if (copied === undefined) throw new InternalError(`no page to put in place of page ${edit.page}`);
      doc.removePage(index);
      doc.insertPage(index, copied);
    }
    const page = doc.getPage(index);
    if (edit.rotation !== undefined) page.setRotation(degrees(edit.rotation));
    if (edit.replaces) continue;
    const [embedded] = await doc.embedPdf(await load(edit.layer), [0]);
    if (embedded === undefined) throw new InternalError(`tesseract wrote no layer for page ${edit.page}`);
    const box = page.getCropBox();
    const rotation = ((page.getRotation().angle % 360) + 360) % 360;
    const place = layerPlacement(rotation, box.width, box.height);
    page.drawPage(embedded, {
      ...place,
      x: box.x + place.x,
      y: box.y + place.y,
    });
  }
  await writeFile(output, await doc.save());
}

/** One-page PDFs joined in order into `output`. */
export async function joinPages({
  pages,
  output,
}: {
  pages: readonly string[];
  output: string;
}): Promise<void> {
  const doc = await PDFDocument.create();
  for (const path of pages) {
    const [copied] = await doc.copyPages(await load(path), [0]);
    if (copied !== undefined) doc.addPage(copied);
  }
  await writeFile(output, await doc.save());
}
