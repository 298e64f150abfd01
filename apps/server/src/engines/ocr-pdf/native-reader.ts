// The native tools without OCRmyPDF: a PDF read a page at a time by the tesseract
// binary (read-pdf.ts with native-recogniser.ts), its layers laid over the original by qpdf
// (page-assembly.ts); an image first written as a PDF by the image OCR's decoder (image-document.ts).
// Then the last passes every engine but OCRmyPDF shares (finish-document.ts: `output=pdfa` through
// Ghostscript, the lossless repack).
import type { MemoryLimit } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import { type DocumentReader, readFailure } from './document-reader.js';
import { finishDocument, refuseUnsupported } from './finish-document.js';
import { type ImageDocumentOptions, imageAsDocument } from './image-document.js';
import { nativeRecogniser } from './native-recogniser.js';
import { qpdfAssembler } from './page-assembly.js';
import type { PageLanes } from './page-lanes.js';
import type { PopplerTools } from './read-page.js';
import { type PdfReadOptions, readPdf } from './read-pdf.js';

export interface NativeTools extends PopplerTools {
  tesseract: ToolInfo;
  qpdf: ToolInfo;
}

export interface NativeReaderOptions extends PageLanes, ImageDocumentOptions {
  tools: NativeTools;
  tessdataDir: string;
  /** Writes `output=pdfa` (pdfa-conversion.ts), with an sRGB profile. */
  ghostscript?: ToolInfo | undefined;
  memoryLimit: MemoryLimit;
  maxImagePixels: number;
  timeoutMs: number;
}

export function nativeReader(o: NativeReaderOptions): DocumentReader {
  const { tools } = o;
  const pdf: PdfReadOptions = {
    ...o,
    poppler: tools,
    qpdf: tools.qpdf,
    recogniser: nativeRecogniser({ ...o, tesseract: tools.tesseract }),
    assembler: qpdfAssembler(tools.qpdf, o.timeoutMs),
  };
  const finish = { ...o, qpdf: tools.qpdf, ghostscript: o.ghostscript, osd: true, draws: true };
  return {
    info: { name: 'tesseract', version: tools.tesseract.version },
    method: 'tesseract',
    async read(plan, job, onProgress) {
      refuseUnsupported(plan, finish);
      try {
        const { doc } = plan;
        const document = doc.kind === 'pdf' ? plan : await imageAsDocument(plan, doc.format, job, o);
        const read = await readPdf(document, job, pdf, onProgress);
        return await finishDocument(read, document, job, finish);
      } catch (error) {
        throw readFailure(error, plan);
      }
    },
  };
}
