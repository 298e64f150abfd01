// An uploaded image read as a document: an OCR process writes it as a PDF
// (../ocr/image-pdf.ts: a page per image page, the image as it came or losslessly, at its resolution,
// upright), which is then read as any scanned PDF, a page at a time and with every option, the image
// untouched under the text layer. One decoder for every engine: the image OCR's (sharp and our BMP reader:
// transparency, EXIF orientation, RLE BMPs), where OCRmyPDF's own img2pdf refuses transparency and the
// tesseract binary's Leptonica RLE BMPs and EXIF orientation.
import { join } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import type { ImageFormat } from '../ocr/image-header.js';
import type { TesseractJsPages } from '../ocr/tesseract-js-pages.js';
import type { MemoryLimit } from '../run-tool.js';
import type { WorkContext } from '../types.js';
import type { ReadPlan } from './document-reader.js';
import { pageFailure } from './page-tool.js';

export interface ImageDocumentOptions {
  /** The OCR processes whose decoder writes the PDF. */
  images: TesseractJsPages;
  cpuSlots: CpuSlots;
  maxImagePixels: number;
  memoryLimit: MemoryLimit;
}

/** `plan` with its image as a PDF: every page read (an image has no text to skip, nor to force away). */
export async function imageAsDocument(
  plan: ReadPlan,
  format: ImageFormat,
  job: WorkContext,
  o: ImageDocumentOptions,
): Promise<ReadPlan> {
  const path = join(job.workDir, 'image.pdf');
  const pageCount = await o.cpuSlots
    .run(() => o.images.imagePdf(plan.doc.path, format, o.maxImagePixels, path, job.signal), job.signal)
    .catch((error: unknown) => {
      throw pageFailure(error, plan.input.label, o.memoryLimit);
    });
  // The answer counts the header's pages (index.ts): a decoder that reads others is refused, not guessed.
  if (pageCount !== plan.doc.pageCount)
    throw new InvalidInputError(
      `${plan.input.label} decodes into ${pageCount} page(s) but its header lists ${plan.doc.pageCount}`,
    );
  return {
    ...plan,
    doc: { kind: 'pdf', path, pageCount },
    // `force` would replace each page by tesseract's copy of its image: the upload's image is kept instead.
    request: { ...plan.request, mode: 'skip' },
  };
}
