// The content check's pictures: the sampled pages of a PDF rendered small, compared in grey. Two renderers
// draw them: poppler's pdftoppm (poppler-renderer.ts) when installed, and Ghostscript, which is always
// installed where this engine runs. Ghostscript's own failure messages void a render, as they void a
// rewrite (../ghostscript-messages.ts), so a page it could not read never serves as a reference.
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ToolInfo } from '../../tools.js';
import type { WorkContext } from '../../types.js';
import { runGhostscript } from '../ghostscript.js';
import { ghostscriptCommonArgs, type PdfInterpreter, pdfInterpreterInput } from '../presets.js';
import { longestSides, type RenderBounds } from './page-sizes.js';

/**
 * Small enough to be cheap (a Letter page is 340x440 pixels; pixels are compared from the files,
 * pgm.ts), large enough that a missing photo or paragraph moves the score far. A resolution rather than
 * a fixed raster: compression downsamples images to a resolution, and a small page fitted into a fixed
 * raster was enlarged until a legitimate 72 dpi rewrite of a 2-inch scan scored 14 dB (OCRmyPDF's
 * 2400dpi.pdf).
 */
const RENDER_DPI = 40;

/** Rendered sides: at least 200 pixels (small pages get a higher resolution), at most 2000 (a 50-inch
 * page at 40 dpi; larger pages get a lower one). */
const RENDER_SIDE_PX = { min: 200, max: 2000 } as const;

/** Draws the sampled pages of a PDF, one PGM or PPM file (pgm.ts) per page, in the order asked for. */
export interface PageRenderer {
  /** For file names and refusals: `pdftoppm`, `default`, `legacy`. */
  name: string;
  render(target: SnapshotTarget, dpi: number, job: WorkContext): Promise<Result<string[]>>;
}

/** `pages` of the PDF at `path`; `name` prefixes the files left in the job's folder. */
export interface SnapshotTarget {
  path: string;
  pages: readonly number[];
  name: string;
  /**
   * Whether a page of the input draws an image, where that is known (drawn-images.ts): a renderer that
   * takes ranges may then draw the cheap pages between two sampled ones rather than start again
   * (poppler-renderer.ts). Only which processes run depends on it, never which pages are compared.
   */
  drawsImages?: ((page: number) => boolean | undefined) | undefined;
  /**
   * Drawn in colour where the renderer can (photo-renders.ts), else in grey: pages are compared in
   * grey either way (pgm.ts).
   */
  colour?: boolean;
}

export type Result<T> = { value: T } | { failure: string };

/** The arguments every Ghostscript run over the sampled pages starts with. */
export function sampledPagesArgs(target: SnapshotTarget, interpreter: PdfInterpreter): string[] {
  return [...ghostscriptCommonArgs(interpreter), `-sPageList=${target.pages.join(',')}`];
}

/** The bounds every render of the check is held to (page-sizes.ts renderDpi). */
export const RENDER_BOUNDS: RenderBounds = {
  dpi: RENDER_DPI,
  minSidePx: RENDER_SIDE_PX.min,
  maxSidePx: RENDER_SIDE_PX.max,
};

/**
 * The longest side of the sampled pages, in points, from Ghostscript's -dPDFINFO report: where qpdf is
 * not installed to read them from the structure (pdf-structure.ts). Only the new interpreter reports;
 * where it cannot read the file, no page is known and renderDpi falls back to RENDER_DPI.
 */
export async function ghostscriptPageSides(
  target: SnapshotTarget,
  run: { gs: ToolInfo; timeoutMs: number },
  job: WorkContext,
): Promise<Map<number, number>> {
  const args = [
    ...sampledPagesArgs(target, 'default'),
    '-dNODISPLAY',
    '-dPDFINFO',
    ...pdfInterpreterInput(resolve(target.path)),
  ];
  const { notes } = await runGhostscript({ gs: run.gs, args, timeoutMs: run.timeoutMs }, job);
  return longestSides(notes);
}

/** The rendered pages' files, or which one is missing: a renderer that exits 0 may still skip a page. */
export async function renderedFiles(paths: readonly string[]): Promise<Result<string[]>> {
  for (const [index, path] of paths.entries()) {
    try {
      await access(path);
    } catch {
      return { failure: `rendered ${index} of ${paths.length} pages` };
    }
  }
  return { value: [...paths] };
}

/** Ghostscript's `pgmraw` device through one PDF interpreter. */
export function ghostscriptRenderer(
  gs: ToolInfo,
  interpreter: PdfInterpreter,
  timeoutMs: number,
): PageRenderer {
  return {
    name: interpreter,
    async render(target, dpi, job) {
      const args = [
        ...sampledPagesArgs(target, interpreter),
        '-sDEVICE=pgmraw',
        `-r${dpi}`,
        // Averages image pixels when scaling down, as a viewer does: point sampling made a legitimately
        // downsampled scan score 14 dB against its original (measured), among blanked pages' scores. It
        // was also faster on large photos (0.5 s instead of 1.4 s for four 4-megapixel JPEGs).
        '-dDOINTERPOLATE',
        // Anti-aliased line art, as viewers draw it. Not text: -dTextAlphaBits made rendering five text
        // pages 3x slower (540 ms instead of 170 ms), and legitimate rewrites keep text as text.
        '-dGraphicsAlphaBits=4',
        `-sOutputFile=${target.name}-page-%d.pgm`,
        ...pdfInterpreterInput(resolve(target.path)),
      ];
      const { failure } = await runGhostscript({ gs, args, timeoutMs }, job);
      if (failure !== undefined) return { failure: `rendering: ${failure}` };
      return renderedFiles(
        target.pages.map((_, index) => resolve(job.workDir, `${target.name}-page-${index + 1}.pgm`)),
      );
    },
  };
}
