// PDF to images (openapi.yaml operation `pdfToImages`): the PDF judged as every PDF input is
// (../pdf-inspect.ts), the pages asked for (split's syntax, ../ocr-pdf/page-selection.ts) counted against
// the plan's pages, each page's image size read from its page size (pdfinfo) against the pixels per
// image, all before anything is drawn; then the pages drawn by pdftoppm in a CPU slot.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { pixelCapOf } from '../images-pdf/image-inputs.js';
import { selectPages } from '../ocr-pdf/page-selection.js';
import { checkReadBudget } from '../page-budget.js';
import { inspectPdf } from '../pdf-inspect.js';
import type { DetectedTools } from '../tools.js';
import type { EngineLog, InputFile, WorkContext } from '../types.js';
import { readPageSizes } from './page-sizes.js';
import { renderPages } from './render-pages.js';
import { planImage } from './render-plan.js';
import type { PdfImagesEngine, RenderBudget, RenderedPage, RenderRequest } from './types.js';

export type { PdfImagesEngine, RenderBudget, RenderedPage, RenderRequest } from './types.js';

export interface PdfImagesEngineOptions {
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  /** The server's page cap for one PDF (PDN_MAX_PAGES). */
  maxPages: number;
  /** The server's own cap on one image's pixels (PDN_MAX_IMAGE_PIXELS), above any plan's. */
  maxImagePixels: number;
  /** Memory of each pdftoppm run, as of each OCR process (PDN_OCR_MEMORY_MB). */
  memoryBytes: number;
  timeoutMs: number;
  log: EngineLog;
}

export function createPdfImagesEngine(o: PdfImagesEngineOptions): PdfImagesEngine {
  const { pdftoppm, pdfinfo, prlimit } = o.tools;
  if (pdftoppm === undefined || pdfinfo === undefined)
    o.log.warn(
      'PDF to images needs poppler-utils (pdftoppm, pdfinfo): every request will fail until installed',
    );
  const memoryLimit = prlimit === undefined ? undefined : { prlimit: prlimit.path, bytes: o.memoryBytes };
  return {
    async render(
      input: InputFile,
      request: RenderRequest,
      budget: RenderBudget,
      job: WorkContext,
    ): Promise<RenderedPage[]> {
      if (pdftoppm === undefined || pdfinfo === undefined)
        throw new InternalError('PDF to images needs poppler-utils (pdftoppm and pdfinfo) on the server');
      const run = { cwd: job.workDir, timeoutMs: o.timeoutMs, signal: job.signal };
      const { path, pageCount } = await inspectPdf(input, { ...run, tools: o.tools, maxPages: o.maxPages });
      const pages = selectPages(request.pages, pageCount);
      checkReadBudget(pages.length, 'to draw', budget);
      const sizes = await readPageSizes(path, pages, pdfinfo, run);
      const cap = pixelCapOf(budget, o.maxImagePixels);
      for (const page of pages) {
        const size = sizes.get(page);
        if (size === undefined) throw new InternalError(`pdfinfo did not report the size of page ${page}`);
        planImage(page, size, request.scale, cap, input.label);
      }
      const folder = join(job.workDir, 'pages');
      await mkdir(folder);
      return o.cpuSlots.run(
        () =>
          renderPages(path, pages, request, { ...run, pdftoppm, memoryLimit, folder, label: input.label }),
        job.signal,
      );
    },
  };
}
