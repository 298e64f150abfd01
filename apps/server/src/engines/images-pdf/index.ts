// Images to PDF (openapi.yaml operation `imagesToPdf`): every upload judged by the OCR path's image
// checks and the plan's budgets before any work (image-inputs.ts), then each appended to the document
// as PDF objects by an OCR process, whose decoders and memory limit are the OCR path's
// (image-fragment.ts), in a document the server begins and closes (document.ts). Built, not handed to
// Debian's img2pdf: img2pdf
// refuses images the OCR path reads (transparency in a TIFF or WebP, 16-bit TIFFs, mirrored EXIF
// orientations) and would be a second decoder of hostile bytes beside the one the checks are made for.
import { join } from 'node:path';
import type { CpuSlots } from '../cpu-slots.js';
import { toApiError } from '../ocr/index.js';
import type { TesseractJsPages } from '../ocr/tesseract-js-pages.js';
import type { InputFile, PdfOutput, WorkContext } from '../types.js';
import { ImageDocument } from './document.js';
import { judgeImages } from './image-inputs.js';
import type { ImageBudget, ImagesPdfEngine, PageLayout } from './types.js';

export type { ImageBudget, ImagesPdfEngine, PageLayout } from './types.js';

export interface ImagesPdfEngineOptions {
  /** The OCR processes, whose decoders write the pages. */
  images: TesseractJsPages;
  cpuSlots: CpuSlots;
  /** The server's own cap on one image's pixels (PDN_MAX_IMAGE_PIXELS), above any plan's. */
  maxImagePixels: number;
  /** Memory of each OCR process, for messages. */
  memoryBytes: number;
}

export function createImagesPdfEngine(o: ImagesPdfEngineOptions): ImagesPdfEngine {
  return {
    async toPdf(
      inputs: readonly InputFile[],
      layout: PageLayout,
      budget: ImageBudget,
      job: WorkContext,
    ): Promise<PdfOutput> {
      const images = await judgeImages(inputs, budget, o.maxImagePixels);
      const maxPixels = Math.min(budget.maxPixels, o.maxImagePixels);
      const path = join(job.workDir, 'images.pdf');
      const limits = { maxImagePixels: maxPixels, memoryBytes: o.memoryBytes };
      return o.cpuSlots.run(async () => {
        const document = await ImageDocument.create(path);
        for (const [index, image] of images.entries()) {
          const request = { path: image.input.path, format: image.format, maxPixels, layout, output: path };
          const fragment = await o.images
            .imageFragment({ ...request, ...document.next }, job.signal)
            .catch((error: unknown) => {
              throw toApiError(error, image.input, image.format, limits, job.signal);
            });
          document.added(fragment);
          job.progress?.(index + 1, images.length);
        }
        const size = await document.close();
        return { path, pageCount: document.pageCount, size };
      }, job.signal);
    },
  };
}
