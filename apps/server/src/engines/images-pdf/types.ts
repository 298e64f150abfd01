// Images to PDF (openapi.yaml operation `imagesToPdf`): what the engine is asked and answers.
import type { PageSize } from '@pdn/api-types';
import type { ImageFormat } from '../ocr/image-header.js';
import type { InputFile, PdfOutput, WorkContext } from '../types.js';

/** The formats the OCR image checks read, and JPEG 2000, which is only ever embedded. */
export type PdfImageFormat = ImageFormat | 'jp2';

export type PaperOrientation = 'auto' | 'portrait' | 'landscape';
export type ImageFit = 'contain' | 'cover';

/** How each image is laid on its page (openapi.yaml `imagesToPdf` fields). */
export interface PageLayout {
  pageSize: PageSize;
  orientation: PaperOrientation;
  fit: ImageFit;
  marginMm: number;
}

/** What the caller's plan lets one request turn into pages (accounts/plans.ts). */
export interface ImageBudget {
  /** Images in all, a TIFF's pages each. */
  maxImages: number;
  /** Pixels of one uploaded image, all its pages together. */
  maxPixels: number;
  /** Whose limit it is, for messages: "the Free plan". */
  holder: string;
}

export interface ImagesPdfEngine {
  /** The images at `inputs`, in order, as one PDF in `job.workDir`; bad images are InvalidInputError. */
  toPdf(
    inputs: readonly InputFile[],
    layout: PageLayout,
    budget: ImageBudget,
    job: WorkContext,
  ): Promise<PdfOutput>;
}
