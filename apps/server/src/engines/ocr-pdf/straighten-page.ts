// Deskew without touching the page's images (`deskew` with the native tools): the page's
// content is drawn turned by the measured tilt about the page's centre (`q <rotation> cm … Q` around its
// content streams), so its images keep their very bytes and only their placement changes. OCRmyPDF
// instead rotates the raster and re-encodes it. What the turn moves past the page's edges is cut off,
// the corners it uncovers are blank, as with a rotated raster of the same size. Runs in the pdf-lib worker
// thread (../pdf/pdf-lib-tasks.ts), never on the main thread: the page is the client's.
import { readFile, writeFile } from 'node:fs/promises';
import { concatTransformationMatrix, PDFDocument, popGraphicsState, pushGraphicsState } from 'pdf-lib';

/**
 * Writes `onePage` (a one-page PDF) into `output` with its content turned by `degrees`, counterclockwise
 * as the page is seen: a page whose lines run down to the right by `degrees` comes out straight.
 */
export async function straightenPage({
  onePage,
  degrees,
  output,
}: {
  onePage: string;
  degrees: number;
  output: string;
}): Promise<void> {
  const doc = await PDFDocument.load(await readFile(onePage), { updateMetadata: false });
  const page = doc.getPage(0);
  const box = page.getMediaBox();
  const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
  const angle = (degrees * Math.PI) / 180;
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  // T(centre) · R(angle) · T(-centre): PDF's y runs upwards, so a positive angle turns counterclockwise.
  const turn = concatTransformationMatrix(
    cos,
    sin,
    -sin,
    cos,
    cx - cx * cos + cy * sin,
    cy - cx * sin - cy * cos,
  );
  const start = doc.context.register(doc.context.contentStream([pushGraphicsState(), turn]));
  const end = doc.context.register(doc.context.contentStream([popGraphicsState()]));
  // /Contents as an array, so the turn can go around whatever streams the page has.
  page.node.normalize();
  if (!page.node.wrapContentStreams(start, end)) throw new Error('the page has no content array to wrap');
  await writeFile(output, await doc.save({ useObjectStreams: false }));
}
