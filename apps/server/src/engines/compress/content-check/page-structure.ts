// The content check of the pdf-lib fallback (issue #9: "where no renderer is installed, compare
// structure instead"): per page, the image XObjects it paints (their pixel sizes, so count and size)
// and the text-showing operators of its content, Form XObjects included. Runs in the pdf-lib worker
// thread (../pdf-lib-compress.ts), on the document pdf-lib loaded.
import {
  decodePDFRawStream,
  PDFArray,
  type PDFContext,
  PDFDict,
  type PDFDocument,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFStream,
} from 'pdf-lib';
import { countTextOperators } from './text-operators.js';

export interface PageStructure {
  /** `"<width>x<height>"` of every image XObject in the page's resources, sorted. */
  images: string[];
  /** Text-showing operators in its content streams; `undefined` when one could not be decoded. */
  textOperators: number | undefined;
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
): void {
  for (const stream of contents) into.textOperators = add(into.textOperators, textOperatorsOf(stream));
  const xObjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
  for (const value of xObjects?.values() ?? []) {
    const xObject = context.lookup(value);
    if (!(xObject instanceof PDFStream) || seen.has(xObject)) continue;
    seen.add(xObject);
    const subtype = xObject.dict.lookupMaybe(PDFName.of('Subtype'), PDFName);
    if (subtype === PDFName.of('Image')) {
      const width = xObject.dict.lookupMaybe(PDFName.of('Width'), PDFNumber)?.asNumber();
      const height = xObject.dict.lookupMaybe(PDFName.of('Height'), PDFNumber)?.asNumber();
      into.images.push(`${width}x${height}`);
    } else if (subtype === PDFName.of('Form')) {
      const formResources = xObject.dict.lookupMaybe(PDFName.of('Resources'), PDFDict);
      collect(context, formResources, [xObject], seen, into);
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

export function pageStructures(doc: PDFDocument): PageStructure[] {
  return doc.getPages().map((page) => {
    const structure: PageStructure = { images: [], textOperators: 0 };
    const contents = contentStreams(doc.context, page.node.Contents());
    collect(doc.context, page.node.Resources(), contents, new Set(), structure);
    structure.images.sort();
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
  }
  return undefined;
}
