// The operations door: one Operation per JobOperation over the engines, built once by main.ts.
import type { JobOperation } from '@pdn/api-types';
import type { Engines } from '../engines/types.js';
import { compressOperation } from './compress.js';
import { htmlToPdfOperation } from './html-to-pdf.js';
import { imagesToPdfOperation } from './images-to-pdf.js';
import { mergeOperation } from './merge.js';
import { ocrOperation } from './ocr.js';
import { ocrPdfOperation } from './ocr-pdf.js';
import { officeToPdfOperation } from './office-to-pdf.js';
import { pdfToImagesOperation } from './pdf-to-images.js';
import { splitOperation } from './split.js';
import type { Operation } from './types.js';

export { type CompressParams, parseLevel } from './compress.js';
export {
  ASSETS_PART,
  checkAssets,
  HTML_PART,
  type HtmlToPdfParams,
  PAPER_SIZES,
  parseMarginMm,
  parseSelector,
  parseTemplate,
  WAIT_UNTIL,
} from './html-to-pdf.js';
export {
  checkImageCount,
  FITS,
  IMAGES_PART,
  type ImagesToPdfParams,
  ORIENTATIONS,
  PAGE_SIZES,
  parseMargin,
} from './images-to-pdf.js';
export { checkMergeCount, MERGE_PART, type MergeParams } from './merge.js';
export { DEFAULT_LANGUAGE, type OcrParams, parseDetail } from './ocr.js';
export { OCR_PDF_MODES, OCR_PDF_OUTPUTS, type OcrPdfParams } from './ocr-pdf.js';
export { type OfficeToPdfParams, PDFA_LEVELS } from './office-to-pdf.js';
export {
  PAGE_IMAGE_FORMATS,
  PAGES_OUTPUTS,
  type PdfToImagesParams,
  renderRequestOf,
} from './pdf-to-images.js';
export { checkRangesLength, type SplitParams } from './split.js';
export { type Operation, type OperationInput, type OutputPublisher, parseChoice } from './types.js';

export type Operations = Readonly<Record<JobOperation, Operation>>;

export function createOperations(engines: Engines): Operations {
  // Each operation checks its own params' shape at the route; a worker hands them back as stored.
  return {
    compress: compressOperation(engines.compress) as Operation,
    merge: mergeOperation(engines.pdf) as Operation,
    split: splitOperation(engines.pdf) as Operation,
    ocr: ocrOperation(engines.ocr) as Operation,
    ocr_pdf: ocrPdfOperation(engines.ocrPdf) as Operation,
    images_to_pdf: imagesToPdfOperation(engines.imagesPdf) as Operation,
    pdf_to_images: pdfToImagesOperation(engines.pdfImages) as Operation,
    office_to_pdf: officeToPdfOperation(engines.officePdf) as Operation,
    html_to_pdf: htmlToPdfOperation(engines.htmlPdf) as Operation,
  };
}
