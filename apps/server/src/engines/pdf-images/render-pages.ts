// The pages drawn by poppler's pdftoppm, a run of consecutive pages per run of the tool, under the OCR
// path's memory limit where prlimit is installed: PNG, or JPEG at the quality asked, at the resolution
// or the width asked, each the page's crop box turned as the page says. Each image's size is then read
// from its header as the OCR checks read headers, so the answer says what was drawn, not what was planned.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import { readImageHeader } from '../ocr/image-header.js';
import { isOutOfMemory } from '../ocr/recognizer.js';
import { type MemoryLimit, runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { RenderedPage, RenderRequest } from './types.js';

export interface RenderRun {
  pdftoppm: ToolInfo;
  memoryLimit?: MemoryLimit | undefined;
  timeoutMs: number;
  signal: AbortSignal;
  /** The folder the images are written in. */
  folder: string;
  /** The input's name, for messages. */
  label: string;
}

/** The ascending pages as runs of consecutive pages: [1, 2, 3, 7] -> [[1, 3], [7, 7]]. */
export function consecutiveRuns(pages: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const page of pages) {
    const last = runs[runs.length - 1];
    if (last !== undefined && page === last[1] + 1) last[1] = page;
    else runs.push([page, page]);
  }
  return runs;
}

/** pdftoppm's arguments for pages `first` to `last`, written as `<prefix>-<page>.<png|jpg>`. */
export function pdftoppmArgs(
  request: RenderRequest,
  first: number,
  last: number,
  pdf: string,
  prefix: string,
): string[] {
  const format = request.format === 'png' ? ['-png'] : ['-jpeg', '-jpegopt', `quality=${request.quality}`];
  const scale =
    'dpi' in request.scale
      ? ['-r', String(request.scale.dpi)]
      : ['-scale-to-x', String(request.scale.width), '-scale-to-y', '-1'];
  return ['-f', String(first), '-l', String(last), '-cropbox', ...format, ...scale, pdf, prefix];
}

/** Draws `pages` (ascending) of the PDF at `pdf`; answers each image in page order. */
export async function renderPages(
  pdf: string,
  pages: readonly number[],
  request: RenderRequest,
  run: RenderRun,
): Promise<RenderedPage[]> {
  const prefix = join(run.folder, 'page');
  for (const [first, last] of consecutiveRuns(pages)) {
    const result = await runTool(run.pdftoppm.path, pdftoppmArgs(request, first, last, pdf, prefix), {
      cwd: run.folder,
      timeoutMs: run.timeoutMs,
      signal: run.signal,
      ...(run.memoryLimit === undefined ? {} : { memoryLimit: run.memoryLimit }),
    });
    if (result.exitCode === 0) continue;
    if (run.memoryLimit !== undefined && isOutOfMemory(result.stderr)) {
      throw new InvalidInputError(
        `Pages ${first}-${last} of ${run.label} need more memory to draw than this server allows ` +
          `(${Math.round(run.memoryLimit.bytes / 2 ** 20)} MiB): ask a lower \`dpi\` or a \`width\``,
      );
    }
    throw new InternalError(`pdftoppm could not draw pages ${first}-${last}: ${result.stderr.trim()}`);
  }
  // pdftoppm pads page numbers to the digits of the document's page count: read them back as numbers.
  const drawn = new Map<number, string>();
  for (const name of await readdir(run.folder)) {
    const match = /^page-(\d+)\.(?:png|jpg)$/.exec(name);
    if (match !== null) drawn.set(Number(match[1]), join(run.folder, name));
  }
  const images: RenderedPage[] = [];
  for (const page of pages) {
    const path = drawn.get(page);
    if (path === undefined) throw new InternalError(`pdftoppm wrote no image of page ${page}`);
    const [size] = (await readImageHeader({ path, label: `the image of page ${page}` })).pages;
    if (size === undefined) throw new InternalError(`the image of page ${page} has no size`);
    images.push({ page, width: size.width, height: size.height, path, size: (await stat(path)).size });
  }
  return images;
}
