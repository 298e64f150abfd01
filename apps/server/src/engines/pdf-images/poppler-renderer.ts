// The pages drawn by poppler's pdftoppm, a run of consecutive pages per run of the tool (it takes a
// range, not a list), under the OCR path's memory limit where prlimit is installed: PNG, or JPEG at the
// quality asked, at the resolution or the width asked, each the page's crop box turned as the page says.
// Where the engine could not read the sizes itself, they come from poppler's own pdfinfo (page-sizes.ts).
// Each run's crop area bounds its images to the planned pixels (pdftoppmRuns): the sizes the budget was
// decided on are read by another parser than pdftoppm's, and a file two parsers read two ways must not
// draw more than was allowed.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import { isOutOfMemory } from '../ocr/recognizer.js';
import { runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import { needsMoreMemory, type PageRenderer } from './page-renderer.js';
import { readPageSizes } from './page-sizes.js';
import type { PlannedImage } from './render-plan.js';
import type { RenderRequest } from './types.js';

/** A run of consecutive pages drawn by one pdftoppm run, and the area it may draw of each, in pixels. */
export interface PdftoppmRun {
  first: number;
  last: number;
  width: number;
  height: number;
}

/**
 * The planned pages (ascending) as runs of consecutive pages, each with a crop area (`-W`, `-H`) that
 * bounds every image it draws: its widest page's width by its tallest page's height, a pixel more each
 * way for a size rounded by another route. A page joins a run only while that area stays within the
 * run's largest planned image (pages of one size share a run), so no image passes the largest planned
 * one by more than a row and a column, whatever size pdftoppm finds its page to be.
 */
export function pdftoppmRuns(planned: readonly PlannedImage[]): PdftoppmRun[] {
  const runs: (PdftoppmRun & { largest: number })[] = [];
  for (const image of planned) {
    const [width, height] = [image.width + 1, image.height + 1];
    const last = runs.at(-1);
    if (last !== undefined && image.page === last.last + 1) {
      const joined = { width: Math.max(last.width, width), height: Math.max(last.height, height) };
      const largest = Math.max(last.largest, width * height);
      if (joined.width * joined.height <= largest) {
        Object.assign(last, { ...joined, last: image.page, largest });
        continue;
      }
    }
    runs.push({ first: image.page, last: image.page, width, height, largest: width * height });
  }
  return runs.map(({ first, last, width, height }) => ({ first, last, width, height }));
}

/** pdftoppm's arguments for `run`, written as `<prefix>-<page>.<png|jpg>`. */
export function pdftoppmArgs(
  request: RenderRequest,
  run: PdftoppmRun,
  pdf: string,
  prefix: string,
): string[] {
  const format = request.format === 'png' ? ['-png'] : ['-jpeg', '-jpegopt', `quality=${request.quality}`];
  const scale =
    'dpi' in request.scale
      ? ['-r', String(request.scale.dpi)]
      : ['-scale-to-x', String(request.scale.width), '-scale-to-y', '-1'];
  const area = ['-x', '0', '-y', '0', '-W', String(run.width), '-H', String(run.height)];
  return [
    '-f',
    String(run.first),
    '-l',
    String(run.last),
    '-cropbox',
    ...format,
    ...scale,
    ...area,
    pdf,
    prefix,
  ];
}

export function popplerRenderer(tools: { pdftoppm: ToolInfo; pdfinfo: ToolInfo }): PageRenderer {
  return {
    name: 'pdftoppm',
    pageSizes: (pdf, pages, run) =>
      readPageSizes(pdf, pages, tools.pdfinfo, {
        cwd: run.folder,
        timeoutMs: run.timeoutMs,
        signal: run.signal,
      }),
    async draw(pdf, planned, request, run) {
      const prefix = join(run.folder, 'page');
      for (const pages of pdftoppmRuns(planned)) {
        const result = await runTool(tools.pdftoppm.path, pdftoppmArgs(request, pages, pdf, prefix), {
          cwd: run.folder,
          timeoutMs: run.timeoutMs,
          signal: run.signal,
          ...(run.memoryLimit === undefined ? {} : { memoryLimit: run.memoryLimit }),
        });
        if (result.exitCode === 0) continue;
        const which = pages.first === pages.last ? String(pages.first) : `${pages.first}-${pages.last}`;
        if (run.memoryLimit !== undefined && isOutOfMemory(result.stderr))
          throw needsMoreMemory(which, run.label, run.memoryLimit);
        // poppler reads the root's /Count where the checks walked the tree: a /Count past 2^31 over one
        // page is no page to it (`Wrong page range given`). The file is damaged; the client can fix it.
        if (/Wrong page range given/.test(result.stderr))
          throw new InvalidInputError(
            `${run.label} is damaged: its page tree's /Count does not match its pages, and pdftoppm ` +
              'finds no page to draw. Repair it (e.g. qpdf in.pdf out.pdf) and send it again.',
          );
        throw new InternalError(`pdftoppm could not draw pages ${which}: ${result.stderr.trim()}`);
      }
      // pdftoppm pads page numbers to the digits of the document's page count: read them back as numbers.
      const drawn = new Map<number, string>();
      for (const name of await readdir(run.folder)) {
        const match = /^page-(\d+)\.(?:png|jpg)$/.exec(name);
        if (match !== null) drawn.set(Number(match[1]), join(run.folder, name));
      }
      return drawn;
    },
  };
}
