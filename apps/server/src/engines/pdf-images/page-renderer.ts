// What draws a PDF's pages as images (openapi.yaml `pdfToImages`): poppler's pdftoppm where installed
// (poppler-renderer.ts), else Ghostscript (ghostscript-renderer.ts), picked once at start-up (index.ts).
// Both are asked the same two things, the sizes first, so that the budgets are decided before anything
// is drawn, and both are held to one test suite (pdf-images-engine.test.ts).
import { InvalidInputError } from '../../errors.js';
import type { MemoryLimit } from '../run-tool.js';
import type { PageSize } from './page-sizes.js';
import type { PlannedImage } from './render-plan.js';
import type { RenderRequest } from './types.js';

export interface RenderRun {
  /** The folder the tools run in and the images are written in. */
  folder: string;
  memoryLimit?: MemoryLimit | undefined;
  timeoutMs: number;
  signal: AbortSignal;
  /** The input's name, for messages. */
  label: string;
}

export interface PageRenderer {
  /** `pdftoppm` or `ghostscript`, for the log. */
  readonly name: string;
  /**
   * The size each of `pages` (ascending) is drawn at, in points at 72 dpi: its crop box, turned as its
   * /Rotate says, as this renderer reads them. A page the renderer does not report is an InternalError.
   */
  pageSizes(pdf: string, pages: readonly number[], run: RenderRun): Promise<Map<number, PageSize>>;
  /**
   * Draws the `planned` pages (ascending) into `run.folder`; answers each page's file. A page that needs
   * more memory than `run.memoryLimit` is InvalidInputError; any other failure is InternalError.
   */
  draw(
    pdf: string,
    planned: readonly PlannedImage[],
    request: RenderRequest,
    run: RenderRun,
  ): Promise<Map<number, string>>;
}

/** `pages` (`3`, `1-4,7`) of `label` did not fit `limit` to be drawn: the client's to fix (400). */
export function needsMoreMemory(pages: string, label: string, limit: MemoryLimit): InvalidInputError {
  const [which, verb] = /^\d+$/.test(pages) ? [`Page ${pages}`, 'needs'] : [`Pages ${pages}`, 'need'];
  return new InvalidInputError(
    `${which} of ${label} ${verb} more memory to draw than this server allows ` +
      `(${Math.round(limit.bytes / 2 ** 20)} MiB): ask a lower \`dpi\` or a \`width\``,
  );
}
