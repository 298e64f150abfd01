// tesseract.js without native tesseract: a PDF read a page at a time in the image
// OCR's tesseract.js processes (read-pdf.ts with tesseract-js-recogniser.ts: their pool, memory limit and
// bundled languages), its layers laid over the original (page-assembly.ts: qpdf, or pdf-lib without it);
// an image first written as a PDF by the OCR processes' decoder and read the same way (image-document.ts).
// Then the last passes the native engine has too (finish-document.ts: `output=pdfa`, and with qpdf the
// lossless repack). A PDF's pages are drawn by poppler's pdftoppm: without poppler-utils only images can
// be read, each page decoded as `POST /api/v1/ocr` decodes it and replaced by tesseract's full page, and a
// PDF is refused naming the package. `rotate` needs OSD data tesseract.js does not bundle: refused by name.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import type { ImageFormat } from '../ocr/image-header.js';
import type { TesseractJsPages } from '../ocr/tesseract-js-pages.js';
import type { MemoryLimit } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { WorkContext } from '../types.js';
import { type DocumentReader, type ReadDocument, type ReadPlan, readFailure } from './document-reader.js';
import { finishDocument, refuseUnsupported } from './finish-document.js';
import { imageAsDocument } from './image-document.js';
import type { PageAssembler } from './page-assembly.js';
import { type PageLanes, readInLanes } from './page-lanes.js';
import { pageFailure } from './page-tool.js';
import type { PopplerTools } from './read-page.js';
import { type PdfReadOptions, readDocument, readPdf } from './read-pdf.js';
import { tesseractJsRecogniser } from './tesseract-js-recogniser.js';
import type { OcrPdfProgress } from './types.js';

/** OCRmyPDF and tesseract.js read images that carry no resolution as 300 dpi (`--image-dpi 300`). */
const IMAGE_DPI = 300;

export interface TesseractJsReaderOptions extends PageLanes {
  tesseractJs: TesseractJsPages;
  /** Draws a PDF's pages; undefined without poppler-utils (images only). */
  poppler: PopplerTools | undefined;
  /** Takes pages out alone (`redo`, `deskew`) and repacks the output; undefined lays layers with pdf-lib. */
  qpdf: ToolInfo | undefined;
  assembler: PageAssembler;
  /** Writes `output=pdfa` (pdfa-conversion.ts), with an sRGB profile. */
  ghostscript: ToolInfo | undefined;
  memoryLimit: MemoryLimit;
  maxImagePixels: number;
  timeoutMs: number;
}

/** Without a renderer only images can be read (README: "The rule without poppler-utils"). */
function noRenderer(plan: ReadPlan): InvalidInputError {
  return new InvalidInputError(
    `${plan.input.label} is a PDF: this server draws PDF pages with poppler-utils (pdftoppm), which it does ` +
      'not have; send the pages as images (PNG, JPEG, TIFF), or ask its operator to install poppler-utils.',
  );
}

/** Without poppler-utils, an image (every page of a TIFF): decoded as `POST /api/v1/ocr` decodes it, each page tesseract's full page. */
async function readImage(
  plan: ReadPlan,
  format: ImageFormat,
  job: WorkContext,
  o: TesseractJsReaderOptions,
  onProgress: OcrPdfProgress,
): Promise<ReadDocument> {
  const folder = join(job.workDir, 'image-pages');
  await mkdir(folder, { recursive: true });
  const images = await o.cpuSlots
    .run(() => o.tesseractJs.prepare(plan.doc.path, format, o.maxImagePixels, folder, job.signal), job.signal)
    .catch((error: unknown) => {
      throw pageFailure(error, plan.input.label, o.memoryLimit);
    });
  const languages = o.tesseractJs.registry.select(plan.codes);
  const reads = await readInLanes(plan.pages, o, job.signal, onProgress, async (page, signal) => {
    const image = images[page - 1];
    if (image === undefined)
      throw new InternalError(`${plan.input.label} decoded into fewer pages than its header lists`);
    const outBase = join(folder, `ocr-${page}`);
    const confidence = await o.tesseractJs
      .readPage(
        languages,
        { image: image.path, dpi: IMAGE_DPI, textOnly: false, hocr: false, outBase },
        signal,
      )
      .catch((error: unknown) => {
        throw pageFailure(error, `Page ${page} of ${plan.input.label}`, o.memoryLimit);
      });
    return {
      status: 'ocred',
      confidence,
      layer: `${outBase}.pdf`,
      textPath: `${outBase}.txt`,
      replaces: true,
    } as const;
  });
  const output = join(job.workDir, 'searchable.pdf');
  const layers = plan.pages.flatMap((page) => {
    const read = reads.get(page);
    return read?.status === 'ocred' ? [read.layer] : [];
  });
  await o.assembler.join(layers, output, job);
  return readDocument(output, plan.doc.pageCount, reads);
}

export function tesseractJsReader(o: TesseractJsReaderOptions): DocumentReader {
  const { poppler } = o;
  const pdf: PdfReadOptions | undefined =
    poppler === undefined
      ? undefined
      : { ...o, poppler, recogniser: tesseractJsRecogniser(o.tesseractJs, o.memoryLimit) };
  const finish = { ...o, osd: false, draws: poppler !== undefined };
  return {
    info: { name: 'tesseract.js', version: `${o.tesseractJs.version} (${o.assembler.name})` },
    method: 'tesseract.js',
    async read(plan, job, onProgress) {
      refuseUnsupported(plan, finish);
      const { doc } = plan;
      try {
        if (pdf === undefined) {
          if (doc.kind === 'pdf') throw noRenderer(plan);
          return await finishDocument(
            await readImage(plan, doc.format, job, o, onProgress),
            plan,
            job,
            finish,
          );
        }
        const images = { ...o, images: o.tesseractJs };
        const document = doc.kind === 'pdf' ? plan : await imageAsDocument(plan, doc.format, job, images);
        return await finishDocument(await readPdf(document, job, pdf, onProgress), document, job, finish);
      } catch (error) {
        throw readFailure(error, plan);
      }
    },
  };
}
