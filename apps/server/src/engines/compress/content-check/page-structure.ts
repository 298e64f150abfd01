// The content check of the pdf-lib fallback, which compares structure where no renderer is installed: per
// page, the image XObjects it paints (their pixel sizes, so count and size), the text-showing operators of
// its content, Form XObjects included, a digest of every stream it draws from, and its annotations with the
// values of the fields they show. pdf-lib's rewrite is lossless, so the digest must not change: a rule, a
// glyph or an image's pixels changed is a changed stream. Runs in the pdf-lib worker thread
// (../pdf-lib-compress.ts), on the document pdf-lib loaded.
import { createHash, type Hash } from 'node:crypto';
import {
  decodePDFRawStream,
  PDFArray,
  type PDFContext,
  PDFDict,
  type PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFStream,
  PDFString,
} from 'pdf-lib';
import { countTextOperators } from './text-operators.js';

export interface PageStructure {
  /** `"<width>x<height>"` of every image XObject in the page's resources, sorted. */
  images: string[];
  /** Text-showing operators in its content streams; `undefined` when one could not be decoded. */
  textOperators: number | undefined;
  /** SHA-1 of the decoded bytes of its content streams and XObjects, in the order it draws them from. */
  drawing: string;
  /** Each annotation's /Subtype, a widget's with its field's name and value, sorted. */
  annotations: string[];
}

/** A stream's bytes decoded where pdf-lib can (the rewrite may deflate a stream stored unfiltered), else as stored. */
function decoded(stream: PDFStream): Uint8Array {
  if (!(stream instanceof PDFRawStream)) return stream.getContents();
  try {
    return decodePDFRawStream(stream).decode();
  } catch {
    return stream.contents;
  }
}

function digest(hash: Hash, stream: PDFStream): void {
  hash.update(decoded(stream));
  hash.update('\n');
}

function textOperatorsOf(stream: PDFStream): number | undefined {
  try {
    const bytes = stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents();
    return countTextOperators(bytes);
  } catch {
    // A filter pdf-lib cannot decode (e.g. JBIG2 never appears in content, but a broken Flate can).
    return undefined;
  }
}

function add(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined ? undefined : a + b;
}

/** Walks resources and content, following each Form XObject once (forms may reference each other). */
function collect(
  context: PDFContext,
  resources: PDFDict | undefined,
  contents: readonly PDFStream[],
  seen: Set<PDFStream>,
  into: PageStructure,
  hash: Hash,
): void {
  for (const stream of contents) {
    into.textOperators = add(into.textOperators, textOperatorsOf(stream));
    digest(hash, stream);
  }
  const xObjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
  for (const value of xObjects?.values() ?? []) {
    const xObject = context.lookup(value);
    if (!(xObject instanceof PDFStream) || seen.has(xObject)) continue;
    seen.add(xObject);
    const subtype = xObject.dict.lookupMaybe(PDFName.of('Subtype'), PDFName);
    if (subtype !== PDFName.of('Form')) digest(hash, xObject);
    if (subtype === PDFName.of('Image')) {
      const width = xObject.dict.lookupMaybe(PDFName.of('Width'), PDFNumber)?.asNumber();
      const height = xObject.dict.lookupMaybe(PDFName.of('Height'), PDFNumber)?.asNumber();
      into.images.push(`${width}x${height}`);
    } else if (subtype === PDFName.of('Form')) {
      const formResources = xObject.dict.lookupMaybe(PDFName.of('Resources'), PDFDict);
      collect(context, formResources, [xObject], seen, into, hash);
    }
  }
}

function contentStreams(context: PDFContext, contents: PDFStream | PDFArray | undefined): PDFStream[] {
  if (contents instanceof PDFStream) return [contents];
  if (contents instanceof PDFArray) {
    return contents.asArray().flatMap((item) => {
      const stream = context.lookup(item);
      return stream instanceof PDFStream ? [stream] : [];
    });
  }
  return [];
}

function text(value: unknown): string {
  return value instanceof PDFString || value instanceof PDFHexString
    ? value.decodeText()
    : String(value ?? '');
}

/** A field's own entry, or its nearest ancestor's (ISO 32000-2 §12.7.4.1: /V and /FT are inherited). */
function fieldEntry(context: PDFContext, field: PDFDict, key: string): unknown {
  const seen = new Set<PDFDict>();
  for (let node: PDFDict | undefined = field; node !== undefined && !seen.has(node); ) {
    seen.add(node);
    const value = node.lookup(PDFName.of(key));
    if (value !== undefined) return value;
    node = context.lookupMaybe(node.get(PDFName.of('Parent')), PDFDict);
  }
  return undefined;
}

function annotationsOf(context: PDFContext, annots: PDFArray | undefined): string[] {
  const found = (annots?.asArray() ?? []).flatMap((item) => {
    const annot = context.lookupMaybe(item, PDFDict);
    if (annot === undefined) return [];
    const subtype = annot.lookupMaybe(PDFName.of('Subtype'), PDFName)?.toString() ?? '(none)';
    if (subtype !== '/Widget') return [subtype];
    return [`${subtype} ${text(fieldEntry(context, annot, 'T'))} = ${text(fieldEntry(context, annot, 'V'))}`];
  });
  return found.sort();
}

export function pageStructures(doc: PDFDocument): PageStructure[] {
  return doc.getPages().map((page) => {
    const structure: PageStructure = { images: [], textOperators: 0, drawing: '', annotations: [] };
    const contents = contentStreams(doc.context, page.node.Contents());
    const hash = createHash('sha1');
    collect(doc.context, page.node.Resources(), contents, new Set(), structure, hash);
    structure.images.sort();
    structure.drawing = hash.digest('hex');
    structure.annotations = annotationsOf(doc.context, page.node.lookupMaybe(PDFName.of('Annots'), PDFArray));
    return structure;
  });
}

/** What the output lost against the input, or undefined when every page kept its images and text. */
export function structureLoss(
  input: readonly PageStructure[],
  output: readonly PageStructure[],
): string | undefined {
  if (output.length !== input.length) return `has ${output.length} pages, the input ${input.length}`;
  for (const [index, before] of input.entries()) {
    const after = output[index] as PageStructure;
    const remaining = [...after.images];
    for (const image of before.images) {
      const at = remaining.indexOf(image);
      if (at === -1) return `page ${index + 1} lost a ${image} image`;
      remaining.splice(at, 1);
    }
    if (
      before.textOperators !== undefined &&
      !(after.textOperators !== undefined && after.textOperators >= before.textOperators)
    ) {
      return `page ${index + 1} has ${after.textOperators ?? 'unreadable'} text-showing operators, the input ${before.textOperators}`;
    }
    if (after.drawing !== before.drawing) return `page ${index + 1} draws from streams that changed`;
    const annotations = [...after.annotations];
    for (const annotation of before.annotations) {
      const at = annotations.indexOf(annotation);
      if (at === -1) return `page ${index + 1} lost or changed an annotation: ${annotation}`;
      annotations.splice(at, 1);
    }
  }
  return undefined;
}
