// Reading and writing PDFs with pdf-lib, inside a worker thread only (see run-pdf-lib-task.ts). The
// reading side turns pdf-lib's failures into the verdicts of pdf-input-errors.ts; the writing side
// re-reads what it wrote, because an output is only returned once its page count is proven.
import { readFile, writeFile } from 'node:fs/promises';
import { ParseSpeeds, PDFDict, PDFDocument, PDFName, PDFPageTree } from 'pdf-lib';
import { InternalError, InvalidInputError } from '../../errors.js';
import type { InputFile } from '../types.js';
import { checkPageCount, damaged, encrypted, pageTreeLoop, pageTreeTooDeep } from './pdf-input-errors.js';

export interface LoadedPdf {
  doc: PDFDocument;
  pageCount: number;
}

// A worker has no event loop to keep responsive, so pdf-lib need not pause every 100 objects (its
// default parse speed), and metadata must not change (updateMetadata rewrites Producer and dates).
const LOAD_OPTIONS = { parseSpeed: ParseSpeeds.Fastest, updateMetadata: false } as const;

async function isEncrypted(bytes: Uint8Array): Promise<boolean> {
  try {
    const doc = await PDFDocument.load(bytes, { ...LOAD_OPTIONS, ignoreEncryption: true });
    return doc.isEncrypted;
  } catch {
    return false;
  }
}

/**
 * Whether `node`'s /Parent, which pdf-lib climbs for inherited attributes (PDFPageLeaf.ascend: the
 * page's /Resources, /MediaBox, /Rotate), leads only to /Pages nodes the walk has already reached: a
 * /Parent naming anything else made pdf-lib throw a TypeError mid-compress (found by the e2e PDF fuzzer),
 * and one naming a later node could climb in a circle. Absent is fine: the climb stops there.
 */
function climbsToSeenNodes(doc: PDFDocument, node: PDFDict, seen: ReadonlySet<PDFPageTree>): boolean {
  const parent = node.get(PDFName.of('Parent'));
  if (parent === undefined) return true;
  const target = doc.context.lookup(parent);
  return target instanceof PDFPageTree && seen.has(target);
}

/**
 * Refuses a page tree in which a /Pages node is reached twice, as qpdf's walk does (QPDF::getAllPages:
 * "Loop detected"), so both engines answer a looping tree alike. pdf-lib's own walk
 * (PDFPageTree.traverse) would recurse until its stack overflows. Reaching a node twice without a cycle
 * is refused too: it multiplies pages (40 nodes that each list the next twice hold 2^40 pages). Kids that
 * are not /Pages nodes are leaves, as pdf-lib sees them; an explicit stack keeps deep trees in bounds.
 * Every node's /Parent must lead back to nodes reached before it (climbsToSeenNodes): each climb then
 * goes strictly back in the walk's order and ends.
 */
function checkPageTree(doc: PDFDocument, label: string): void {
  const root = doc.catalog.Pages();
  if (!climbsToSeenNodes(doc, root, new Set())) throw damaged(label);
  const seen = new Set<PDFPageTree>([root]);
  const stack = [{ kids: root.Kids(), next: 0 }];
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    if (frame.next >= frame.kids.size()) {
      stack.pop();
      continue;
    }
    const kid = doc.context.lookup(frame.kids.get(frame.next++));
    if (kid instanceof PDFDict && !climbsToSeenNodes(doc, kid, seen)) throw damaged(label);
    if (!(kid instanceof PDFPageTree)) continue;
    if (seen.has(kid)) throw pageTreeLoop(label);
    seen.add(kid);
    stack.push({ kids: kid.Kids(), next: 0 });
  }
}

function countPages(doc: PDFDocument, label: string): number {
  try {
    checkPageTree(doc, label);
    return doc.getPageCount();
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    // pdf-lib walks the page tree recursively and overflowed its stack on a deep one.
    if (error instanceof RangeError) throw pageTreeTooDeep(label);
    throw damaged(label);
  }
}

/**
 * Loads `input` strictly (an unparsable object is an error, not silently skipped) and applies the
 * same checks as inspectPdf: encryption, zero pages, the page cap.
 */
export async function loadPdf(input: InputFile, maxPages: number): Promise<LoadedPdf> {
  const bytes = await readFile(input.path);
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, {
      ...LOAD_OPTIONS,
      ignoreEncryption: true,
      throwOnInvalidObject: true,
    });
  } catch {
    // Encrypted object streams fail the strict parse; a lenient one tells that case apart from damage.
    throw (await isEncrypted(bytes)) ? encrypted(input.label) : damaged(input.label);
  }
  // pdf-lib cannot decrypt: copying pages out of an encrypted file would produce garbage.
  if (doc.isEncrypted) throw encrypted(input.label);
  const pageCount = countPages(doc, input.label);
  checkPageCount(input.label, pageCount, maxPages);
  return { doc, pageCount };
}

/** Copies `indices` (0-based) of `source` into `target`; a failure is blamed on the source file. */
export async function appendPages(
  target: PDFDocument,
  source: LoadedPdf,
  indices: readonly number[],
  label: string,
): Promise<void> {
  let pages: Awaited<ReturnType<PDFDocument['copyPages']>>;
  try {
    pages = await target.copyPages(source.doc, [...indices]);
  } catch (error) {
    if (error instanceof RangeError) throw pageTreeTooDeep(label);
    throw damaged(label);
  }
  for (const page of pages) target.addPage(page);
}

/**
 * Saves `doc` to `path`, then reads the file back and checks it has `expectedPages` pages, both walked
 * and claimed by its root's /Count, which other readers trust (poppler refuses a file whose /Count is
 * past its objects; verifyQpdfOutput reads it too).
 */
export async function savePdf(doc: PDFDocument, path: string, expectedPages: number): Promise<void> {
  await writeFile(path, await doc.save({ objectsPerTick: Number.POSITIVE_INFINITY }));
  let counts: number[];
  try {
    const written = await PDFDocument.load(await readFile(path), LOAD_OPTIONS);
    counts = [written.getPageCount(), written.catalog.Pages().Count().asNumber()];
  } catch (error) {
    throw new InternalError(`pdf-lib output ${path} cannot be read back`, { cause: error });
  }
  if (counts.some((count) => count !== expectedPages)) {
    throw new InternalError(
      `pdf-lib output ${path} has ${counts.join(' pages, claiming ')}, expected ${expectedPages}`,
    );
  }
}
