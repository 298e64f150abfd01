// A floor under the size of qpdf's lossless pass over a file (qpdf-pass.ts), read in this process without
// running qpdf: the bytes of the streams the pass copies as they are. qpdf writes the objects reachable
// from the trailer; it leaves alone the data of a stream whose /Filter is the one name /FlateDecode (it
// recompresses Flate only when told to, with --recompress-flate, which the pass never gives), and it
// cannot decode DCT, CCITT, JBIG2 or JPX data at its default decode level, so it copies that too. Only
// the document's /Metadata stream is left out: qpdf may write it uncompressed.
// Where Ghostscript's output is no smaller than the best lossless size, the pass over it had still run
// (20-40 ms) and then rarely made it smaller than that: where this floor already reaches that size, it
// cannot, and the pass is not run.
import { withFileBytes } from '../pdf/page-walk/file-bytes.js';
import { PdfObjects } from '../pdf/page-walk/pdf-objects.js';
import { isDict, nameOf, type PdfDict, PdfRef, type PdfValue } from '../pdf/page-walk/pdf-syntax.js';

// The read runs on the event loop, which every other caller waits on: bounded as the page walk of
// inspection is (../pdf/page-walk/page-tree-walk.ts). Past either bound the pass runs, as it would
// anyway, and for so large a file its start is a small part of its work.
/** Files past this size are not read into memory for it. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
/**
 * Objects looked up: beyond it, the floor is not known (the walk's token budget bounds the rest). A
 * 3,000-page output of 1.3 MB took 33 ms; 50,000 objects would have held the loop about 0.2 s.
 */
const MAX_OBJECTS = 10_000;
/** Filters whose data the pass copies byte for byte, abbreviations included (ISO 32000-2 Table 92). */
const COPIED_FILTERS = new Set([
  'FlateDecode',
  'Fl',
  'DCTDecode',
  'DCT',
  'CCITTFaxDecode',
  'CCF',
  'JBIG2Decode',
  'JPXDecode',
]);

/** Whether the pass copies the data of the stream with dictionary `dict` as it is. */
function copiedAsIs(dict: PdfDict): boolean {
  const filter = nameOf(dict.get('Filter'));
  return filter !== undefined && COPIED_FILTERS.has(filter);
}

/** The sum of the copied streams' data over every object reachable from the trailer's /Root and /Info. */
function floorOf(bytes: Buffer): number {
  const objects = new PdfObjects(bytes, MAX_OBJECTS);
  const { trailer } = objects;
  const catalog = objects.resolve(trailer.get('Root'));
  const metadata = isDict(catalog) ? catalog.get('Metadata') : undefined;
  const seen = new Set<string>();
  const pending: (PdfValue | undefined)[] = [trailer.get('Root'), trailer.get('Info')];
  let floor = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    if (value instanceof PdfRef) {
      const key = `${value.num} ${value.gen}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const object = objects.getWithStream(value);
      const isMetadata = metadata instanceof PdfRef && `${metadata.num} ${metadata.gen}` === key;
      if (object.streamBytes !== undefined && isDict(object.value) && copiedAsIs(object.value) && !isMetadata)
        floor += object.streamBytes;
      pending.push(object.value);
    } else if (Array.isArray(value)) pending.push(...value);
    else if (isDict(value)) pending.push(...value.values());
  }
  return floor;
}

/**
 * Bytes that qpdf's lossless pass over the PDF at `path` writes at the least; undefined where this reader
 * has any doubt about the file (then nothing is known, and the pass runs).
 */
export async function qpdfPassFloorBytes(path: string): Promise<number | undefined> {
  return withFileBytes(path, MAX_FILE_BYTES, (bytes) => {
    try {
      return floorOf(bytes);
    } catch {
      // A Doubt, or a defect of this reader on a file nobody foresaw: either way the pass decides.
      return undefined;
    }
  });
}
