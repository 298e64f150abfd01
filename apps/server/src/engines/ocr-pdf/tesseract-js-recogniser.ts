// tesseract.js reading a page's raster, in one of the image OCR's processes
// (ocr/tesseract-js-pages.ts: their pool, memory limit and languages): tesseract's own PDF renderer
// (`pdfTextOnly`), its text, its hOCR when asked. No OSD: tesseract.js does not bundle its data.
import type { TesseractJsPages } from '../ocr/tesseract-js-pages.js';
import type { MemoryLimit } from '../run-tool.js';
import { pageFailure, pageName } from './page-tool.js';
import type { PageRecogniser } from './read-page.js';

export function tesseractJsRecogniser(
  tesseractJs: TesseractJsPages,
  memoryLimit: MemoryLimit,
): PageRecogniser {
  return {
    async recognise(raster, base, read, job) {
      const languages = tesseractJs.registry.select(job.codes);
      return tesseractJs
        .readPage(languages, { image: raster, outBase: base, ...read }, job.signal)
        .catch((error: unknown) => {
          throw pageFailure(error, pageName(job), memoryLimit);
        });
    },
  };
}
