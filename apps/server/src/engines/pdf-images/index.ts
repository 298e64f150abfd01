// PDF to images (openapi.yaml operation `pdfToImages`): the PDF judged as every PDF input is
// (../pdf-inspect.ts), the pages asked for (split's syntax, ../ocr-pdf/page-selection.ts) counted against
// the plan's pages, each page's image size read from its page size against the pixels per image, all
// before anything is drawn; then the pages drawn in a CPU slot by poppler's pdftoppm where installed,
// else by Ghostscript (page-renderer.ts), picked once here from the tools found at start-up. The page
// sizes are read in this process where the page-tree walk is sure of them (shown-sizes.ts), else by
// the renderer, which costs a process start; each renderer holds its images to the planned sizes.
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { pixelCapOf } from '../images-pdf/image-inputs.js';
import { readImageHeader } from '../ocr/image-header.js';
import { selectPages } from '../ocr-pdf/page-selection.js';
import { checkReadBudget } from '../page-budget.js';
import { inspectPdf } from '../pdf-inspect.js';
import type { DetectedTools } from '../tools.js';
import type { EngineLog, InputFile, WorkContext } from '../types.js';
import { ghostscriptRenderer } from './ghostscript-renderer.js';
import type { PageRenderer } from './page-renderer.js';
import type { PageSize } from './page-sizes.js';
import { popplerRenderer } from './poppler-renderer.js';
import { type PlannedImage, planImage } from './render-plan.js';
import type { PdfImagesEngine, RenderBudget, RenderedPage, RenderRequest } from './types.js';

export type { PdfImagesEngine, RenderBudget, RenderedPage, RenderRequest } from './types.js';

export interface PdfImagesEngineOptions {
  /** The tools found at start-up: they pick the renderer. */
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  /** The server's page cap for one PDF (PDN_MAX_PAGES). */
  maxPages: number;
  /** The server's own cap on one image's pixels (PDN_MAX_IMAGE_PIXELS), above any plan's. */
  maxImagePixels: number;
  /** Memory of each renderer run, as of each OCR process (PDN_OCR_MEMORY_MB). */
  memoryBytes: number;
  timeoutMs: number;
  log: EngineLog;
}

const MISSING = 'PDF to images needs poppler-utils (pdftoppm and pdfinfo) or Ghostscript on the server';

/** poppler where both its tools are installed, else Ghostscript, else none. */
export function pickRenderer(tools: DetectedTools): PageRenderer | undefined {
  const { pdftoppm, pdfinfo, ghostscript } = tools;
  if (pdftoppm !== undefined && pdfinfo !== undefined) return popplerRenderer({ pdftoppm, pdfinfo });
  return ghostscript === undefined ? undefined : ghostscriptRenderer(ghostscript);
}

/** Each drawn image's size as its header says, so the answer says what was drawn, not what was planned. */
function describe(
  planned: readonly PlannedImage[],
  files: ReadonlyMap<number, string>,
  renderer: string,
): Promise<RenderedPage[]> {
  return Promise.all(
    planned.map(async ({ page }) => {
      const path = files.get(page);
      if (path === undefined) throw new InternalError(`${renderer} wrote no image of page ${page}`);
      const [header, { size }] = await Promise.all([
        readImageHeader({ path, label: `the image of page ${page}` }),
        stat(path),
      ]);
      const [dimensions] = header.pages;
      if (dimensions === undefined) throw new InternalError(`the image of page ${page} has no size`);
      return { page, width: dimensions.width, height: dimensions.height, path, size };
    }),
  );
}

export function createPdfImagesEngine(o: PdfImagesEngineOptions): PdfImagesEngine {
  const renderer = pickRenderer(o.tools);
  if (renderer === undefined) o.log.warn(`${MISSING}: every request will fail until one is installed`);
  else if (renderer.name !== 'pdftoppm')
    o.log.warn(`PDF to images: pages drawn by ${renderer.name}, poppler-utils (pdftoppm, pdfinfo) not found`);
  const { prlimit } = o.tools;
  const memoryLimit = prlimit === undefined ? undefined : { prlimit: prlimit.path, bytes: o.memoryBytes };
  return {
    async render(
      input: InputFile,
      request: RenderRequest,
      budget: RenderBudget,
      job: WorkContext,
    ): Promise<RenderedPage[]> {
      if (renderer === undefined) throw new InternalError(MISSING);
      const { path, pageCount, shownSizes } = await inspectPdf(input, {
        timeoutMs: o.timeoutMs,
        signal: job.signal,
        tools: o.tools,
        maxPages: o.maxPages,
        shownSizes: true,
      });
      const pages = selectPages(request.pages, pageCount);
      checkReadBudget(pages.length, 'to draw', budget);
      const folder = join(job.workDir, 'pages');
      await mkdir(folder);
      const run = { folder, memoryLimit, timeoutMs: o.timeoutMs, signal: job.signal, label: input.label };
      const sizes =
        shownSizes === undefined
          ? await renderer.pageSizes(path, pages, run)
          : new Map(pages.map((page) => [page, shownSizes[page - 1] as PageSize]));
      const cap = pixelCapOf(budget, o.maxImagePixels);
      const planned = pages.map((page) => {
        const size = sizes.get(page);
        if (size === undefined)
          throw new InternalError(`${renderer.name} did not report the size of page ${page}`);
        return planImage(page, size, request.scale, cap, input.label);
      });
      return o.cpuSlots.run(async () => {
        const files = await renderer.draw(path, planned, request, run);
        return describe(planned, files, renderer.name);
      }, job.signal);
    },
  };
}
