// The pdf-lib fallback (object streams, and dropping unused objects and the metadata the level allows), run
// as a task of the pdf-lib worker thread (../pdf/pdf-lib-tasks.ts), never on the main thread. Everything here
// is lossless: pdf-lib cannot resample images.
import { readFile } from 'node:fs/promises';
import { deflateSync } from 'node:zlib';
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFPageLeaf,
  PDFPageTree,
  PDFRawStream,
  PDFRef,
  PDFStream,
} from 'pdf-lib';
import { loadPdf, savePdf } from '../pdf/pdf-lib-io.js';
import type { InputFile } from '../types.js';
import { pageStructures, structureLoss } from './content-check/page-structure.js';

export interface PdfLibCompressArgs {
  input: InputFile;
  outputPath: string;
  maxPages: number;
  /** The document information dictionary and XMP stream: dropped at `medium` and `high`. */
  dropMetadata: boolean;
}

/** Indirect objects reachable from the trailer; everything else is dead weight an editor left behind. */
function reachableRefs(context: PDFContext): Set<PDFRef> {
  const seen = new Set<PDFRef>();
  // An explicit stack, not recursion: long /Next chains would overflow the worker's stack.
  const { Root, Info } = context.trailerInfo;
  const stack = [Root, Info].filter((object): object is PDFObject => object !== undefined);
  for (let object = stack.pop(); object !== undefined; object = stack.pop()) {
    if (object instanceof PDFRef) {
      if (seen.has(object)) continue;
      seen.add(object);
      const target = context.lookup(object);
      if (target !== undefined) stack.push(target);
    } else if (object instanceof PDFDict) {
      stack.push(...object.values());
    } else if (object instanceof PDFStream) {
      stack.push(object.dict);
    } else if (object instanceof PDFArray) {
      stack.push(...object.asArray());
    }
  }
  return seen;
}

function dropUnreachableObjects(context: PDFContext): void {
  const reachable = reachableRefs(context);
  for (const [ref] of context.enumerateIndirectObjects()) {
    if (!reachable.has(ref)) context.delete(ref);
  }
}

/** Deflates streams stored without any filter, where that makes them smaller. */
function deflateUnfilteredStreams(context: PDFContext): void {
  for (const [ref, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream) || object.dict.has(PDFName.of('Filter'))) continue;
    const packed = deflateSync(object.contents, { level: 9 });
    if (packed.length >= object.contents.length) continue;
    const dict = object.dict.clone(context);
    dict.set(PDFName.of('Filter'), PDFName.of('FlateDecode'));
    context.assign(ref, PDFRawStream.of(dict, packed));
  }
}

/**
 * Sets every /Pages node's /Count to the pages really under it. The output keeps the input's page tree,
 * so a /Count that lies would survive into it, and poppler refuses such a file ("Page
 * count (65535) larger than number of objects": found by the fuzz suite). Leaves are what pdf-lib
 * counts as pages; loadPdf has already refused trees that reach a node twice, and the explicit stack
 * keeps deep ones in bounds.
 */
function recountPageTree(doc: PDFDocument): void {
  const root = doc.catalog.Pages();
  const stack = [{ node: root, kids: root.Kids(), next: 0, pages: 0 }];
  for (let frame = stack.at(-1); frame !== undefined; frame = stack.at(-1)) {
    if (frame.next >= frame.kids.size()) {
      stack.pop();
      frame.node.set(PDFName.of('Count'), PDFNumber.of(frame.pages));
      const parent = stack.at(-1);
      if (parent !== undefined) parent.pages += frame.pages;
      continue;
    }
    const kid = doc.context.lookup(frame.kids.get(frame.next++));
    if (kid instanceof PDFPageTree) stack.push({ node: kid, kids: kid.Kids(), next: 0, pages: 0 });
    else if (kid instanceof PDFPageLeaf) frame.pages += 1;
  }
}

export interface PdfLibCompressResult {
  pageCount: number;
  /** What the output lost against the input (page-structure.ts): it must not be returned. */
  lost: string | undefined;
}

export async function compressWithPdfLib(args: PdfLibCompressArgs): Promise<PdfLibCompressResult> {
  const { doc, pageCount } = await loadPdf(args.input, args.maxPages);
  const before = pageStructures(doc);
  if (args.dropMetadata) {
    doc.catalog.delete(PDFName.of('Metadata'));
    delete doc.context.trailerInfo.Info;
  }
  recountPageTree(doc);
  dropUnreachableObjects(doc.context);
  deflateUnfilteredStreams(doc.context);
  // pdf-lib's save() packs objects into object streams by default; savePdf re-reads and counts pages.
  await savePdf(doc, args.outputPath, pageCount);
  const written = await PDFDocument.load(await readFile(args.outputPath), { updateMetadata: false });
  return { pageCount, lost: structureLoss(before, pageStructures(written)) };
}
