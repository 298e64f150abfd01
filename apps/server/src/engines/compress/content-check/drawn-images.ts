// How many images each sampled page draws (so that no page, image or searchable text is lost), as poppler's
// `pdfimages -list` sees them: every image and stencil mask a page's content draws, inline images and those
// inside forms included (soft masks are part of their image). A rewrite may draw more (Ghostscript turns
// inline images and some shadings into images), never fewer: an image too small or too pale to move a page's
// PSNR or marks is still content.
import { resolve } from 'node:path';
import { runTool, ToolAbortedError } from '../../run-tool.js';
import type { ToolInfo } from '../../tools.js';
import type { WorkContext } from '../../types.js';
import type { Result, SnapshotTarget } from './render.js';
import { pdftotextRanges } from './word-readers.js';

/** One drawing of an image, a row of `pdfimages -list`. */
export interface ImageListRow {
  page: number;
  /** `image`, `stencil`, or `mask` and `smask` (an image's explicit and soft masks). */
  type: string;
  /** Object number and generation (`4 0`); undefined for an inline image. */
  object: string | undefined;
  /** The higher of the drawing's horizontal and vertical resolution, in pixels per inch, as printed (whole). */
  ppi: number;
}

/** The rows of `pdfimages -list` output; heading lines, and any run's repeated ones, are not rows. */
export function imageListRows(list: string): ImageListRow[] {
  // Columns: page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio,
  // where an inline image has `[inline]` in the place of the object number and generation.
  return list.split('\n').flatMap((line) => {
    const cells = line.trim().split(/\s+/);
    const page = Number(cells[0]);
    if (cells.length < 15 || !Number.isInteger(page) || page < 1) return [];
    const inline = cells[10] === '[inline]';
    const [x, y] = inline ? cells.slice(11, 13) : cells.slice(12, 14);
    const type = cells[2] ?? '';
    return [
      {
        page,
        type,
        object: inline ? undefined : `${cells[10]} ${cells[11]}`,
        ppi: Math.max(Number(x), Number(y)),
      },
    ];
  });
}

/** Per page of `pages`, the images `pdfimages -list` printed for it (pages it printed none for: 0). */
export function imagesPerPage(list: string, pages: readonly number[]): Map<number, number> {
  const counts = new Map(pages.map((page) => [page, 0]));
  for (const { page, type } of imageListRows(list)) {
    const count = counts.get(page);
    if (count !== undefined && (type === 'image' || type === 'stencil')) counts.set(page, count + 1);
  }
  return counts;
}

/**
 * The images the pages draw, read in the same ranges as pdftotext reads text: from the first to the last
 * sampled page at once for files up to 50 pages, else one run per sampled page. Every page read is
 * counted, the sampled ones and those between: the pages between tell the renderer which it may draw
 * cheaply (poppler-renderer.ts); the floor compares the sampled pages.
 */
export async function drawnImages(
  pdfimages: ToolInfo,
  target: SnapshotTarget,
  timeoutMs: number,
  job: WorkContext,
): Promise<Result<Map<number, number>>> {
  let list = '';
  const ranges = pdftotextRanges(target.pages);
  for (const [from, to] of ranges) {
    try {
      const args = ['-list', '-f', String(from), '-l', String(to), resolve(target.path)];
      const { exitCode, stdout } = await runTool(pdfimages.path, args, {
        cwd: job.workDir,
        timeoutMs,
        signal: job.signal,
      });
      if (exitCode !== 0) return { failure: `pdfimages exited with ${exitCode} on pages ${from}-${to}` };
      // runTool keeps the tail of a long output: without its headings, the list lost its first rows.
      if (!stdout.startsWith('page')) return { failure: `too many images to count on pages ${from}-${to}` };
      list += stdout;
    } catch (error) {
      if (error instanceof ToolAbortedError) throw error;
      return { failure: `pdfimages failed to run: ${(error as Error).message}` };
    }
  }
  const read = ranges.flatMap(([from, to]) =>
    Array.from({ length: to - from + 1 }, (_, index) => from + index),
  );
  return { value: imagesPerPage(list, read) };
}
