// Images to PDF (openapi.yaml operation `imagesToPdf`): every upload judged by the OCR path's image
// checks and the plan's budgets before any work (image-inputs.ts), then each appended to the document
// as PDF objects by an OCR process, whose decoders and memory limit are the OCR path's
// (image-fragment.ts), in a document the server begins and closes (document.ts); the JPEG and PNG data
// those objects copy undecoded is decoded to check it beside the writing, in a spare slot where there is
// one (job-lanes.ts). Built, not handed to Debian's img2pdf: img2pdf refuses images the OCR path reads
// (transparency in a TIFF or WebP, 16-bit TIFFs, mirrored EXIF orientations) and would be a second
// decoder of hostile bytes beside the one the checks are made for.
import { join } from 'node:path';
import type { CpuSlots } from '../cpu-slots.js';
import { JobLanes } from '../job-lanes.js';
import { toApiError } from '../ocr/index.js';
import type { TesseractJsPages } from '../ocr/tesseract-js-pages.js';
import type { InputFile, PdfOutput, WorkContext } from '../types.js';
import { ImageDocument } from './document.js';
import type { ImageCheckRequest } from './image-fragment.js';
import { type JudgedImage, judgeImages } from './image-inputs.js';
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

/**
 * What went wrong, by image: the first image in upload order is the one named, whichever request
 * failed first, so the same upload is always refused the same way. Any failure stops what has not
 * started.
 */
class Failures {
  readonly #byImage = new Map<number, unknown>();
  readonly #stop = new AbortController();

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  add(index: number, error: unknown): void {
    if (!this.#byImage.has(index)) this.#byImage.set(index, error);
    this.#stop.abort(new Error('another request for the same document failed'));
  }

  first(): { index: number; error: unknown } | undefined {
    const index = Math.min(...this.#byImage.keys());
    return Number.isFinite(index) ? { index, error: this.#byImage.get(index) } : undefined;
  }
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
        const failures = new Failures();
        // A turn still waiting is dropped when the job ends or any request fails; a request running in
        // an OCR process is stopped by the job's signal only, as stopping it ends the process.
        const turns = AbortSignal.any([job.signal, failures.signal]);
        const lanes = new JobLanes(o.cpuSlots, turns);
        const failed = (index: number) => (error: unknown) => {
          if (error !== turns.reason) failures.add(index, error);
        };
        const document = await ImageDocument.create(path);
        // The fragments one after the other, as each starts where the last ended: the job's main line.
        const written = lanes.main(async () => {
          for (const [index, image] of images.entries()) {
            if (failures.signal.aborted) return;
            const request = { path: image.input.path, format: image.format, maxPixels, layout, output: path };
            try {
              document.added(await o.images.imageFragment({ ...request, ...document.next }, job.signal));
            } catch (error) {
              failed(index)(error);
              return;
            }
            job.progress?.(index + 1, images.length);
          }
        });
        // The checks of the JPEG and PNG data the fragments copy undecoded, beside them: in a spare slot,
        // where a second core takes them while the first writes, or in the job's own after the writing.
        const checks = images.map((image, index) =>
          image.format === 'jpeg' || image.format === 'png'
            ? lanes
                .beside(() => o.images.imageCheck(checkOf(image, maxPixels), job.signal))
                .catch(failed(index))
            : undefined,
        );
        await Promise.all([written.catch(failed(images.length)), ...checks]);
        job.signal.throwIfAborted();
        const failure = failures.first();
        if (failure !== undefined) {
          const image = images[failure.index];
          if (image === undefined) throw failure.error;
          throw toApiError(failure.error, image.input, image.format, limits, job.signal);
        }
        const size = await document.close();
        return { path, pageCount: document.pageCount, size };
      }, job.signal);
    },
  };
}

function checkOf(image: JudgedImage, maxPixels: number): ImageCheckRequest {
  return { path: image.input.path, format: image.format, maxPixels };
}
