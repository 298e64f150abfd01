// PDF to images (openapi.yaml operation `pdfToImages`): what the engine is asked and answers.
import type { PageImageFormat } from '@pdn/api-types';
import type { InputFile, WorkContext } from '../types.js';

/** The resolution of every image: pixels per inch, or a width in pixels (a thumbnail). */
export type ImageScale = { dpi: number } | { width: number };

export interface RenderRequest {
  /** The raw `pages` field (split's range syntax); every page when undefined. */
  pages?: string | undefined;
  format: PageImageFormat;
  /** JPEG quality, 1-100. */
  quality: number;
  scale: ImageScale;
}

/** What the caller's plan lets one request draw (accounts/plans.ts). */
export interface RenderBudget {
  maxPages: number;
  /** Pixels of one page's image. */
  maxPixels: number;
  /** Whose limit it is, for messages: "the Free plan". */
  holder: string;
}

export interface RenderedPage {
  page: number;
  width: number;
  height: number;
  path: string;
  size: number;
}

export interface PdfImagesEngine {
  /** Draws the pages asked of `input` into `job.workDir`, in page order; bad input is InvalidInputError. */
  render(
    input: InputFile,
    request: RenderRequest,
    budget: RenderBudget,
    job: WorkContext,
  ): Promise<RenderedPage[]>;
}
