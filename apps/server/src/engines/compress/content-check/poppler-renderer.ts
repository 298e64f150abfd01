// The content check's first renderer when poppler is installed: pdftoppm draws the pages of input and
// candidate alike, independently of the Ghostscript that rewrote them. A check drawn by the rewriter itself
// compares two equally wrong pictures where the rewriter misreads the input: Ghostscript 10.00 drew
// ImageMagick's JPEG 2000 image with a soft mask wrongly in the input and in its own output, so its renders
// agreed (33 dB) while poppler's showed the image gone (8 dB). It is also cheaper to start: 10-20 ms for a
// text page, against 80-140 ms for Ghostscript (measured on the corpus).
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runTool, ToolAbortedError } from '../../run-tool.js';
import type { ToolInfo } from '../../tools.js';
import type { PageRenderer } from './render.js';
import { renderedFiles } from './render.js';

/**
 * Pages between two sampled pages that one pdftoppm run may draw rather than start again. Measured with
 * poppler 22.12 at 40 dpi on generated text pages: a run costs about 30 ms of CPU to start (fontconfig
 * and the document's fonts), a text page about 2 ms more, so ten pages of text cost less than one start
 * (a 10-page sample of five pages: 0.24 s of CPU in five runs, 0.06 s in one). A page that draws an
 * image costs its decoding, a 300 dpi photo page far more than a start, so gaps with images are not
 * drawn.
 */
export const MAX_GAP_PAGES = 10;

/**
 * The page ranges pdftoppm draws `pages` in (it takes a range, not a list): consecutive sampled pages
 * share one run when every page between them is known not to draw an image (`drawsImages` false) and
 * there are at most MAX_GAP_PAGES of them. A sample without gaps is one run; a spread over a long file,
 * or over pages with images or of unknown content, one run per sampled page.
 */
export function pdftoppmRuns(
  pages: readonly number[],
  drawsImages: (page: number) => boolean | undefined = () => undefined,
): [number, number][] {
  const cheapGap = (from: number, to: number) => {
    if (to - from - 1 > MAX_GAP_PAGES) return false;
    for (let page = from + 1; page < to; page += 1) if (drawsImages(page) !== false) return false;
    return true;
  };
  const runs: [number, number][] = [];
  for (const page of pages) {
    const last = runs.at(-1);
    if (last !== undefined && cheapGap(last[1], page)) last[1] = page;
    else runs.push([page, page]);
  }
  return runs;
}

/**
 * pdftoppm, in grey or in colour, in as few runs as pdftoppmRuns allows: drawing a few cheap pages that are not
 * compared costs less than starting pdftoppm again.
 */
export function popplerRenderer(pdftoppm: ToolInfo, timeoutMs: number): PageRenderer {
  async function run(
    args: string[],
    job: Parameters<PageRenderer['render']>[2],
  ): Promise<string | undefined> {
    try {
      const { exitCode, stderr } = await runTool(pdftoppm.path, args, {
        cwd: job.workDir,
        timeoutMs,
        signal: job.signal,
      });
      return exitCode === 0 ? undefined : `pdftoppm exited with ${exitCode}: ${stderr.trim().slice(0, 300)}`;
    } catch (error) {
      if (error instanceof ToolAbortedError) throw error;
      return `pdftoppm failed to run: ${(error as Error).message}`;
    }
  }

  return {
    name: 'pdftoppm',
    async render(target, dpi, job) {
      const input = resolve(target.path);
      const common = ['-q', ...(target.colour === true ? [] : ['-gray']), '-r', String(dpi)];
      const extension = target.colour === true ? 'ppm' : 'pgm';
      const prefix = `${target.name}-page`;
      const paths = new Map<number, string>();
      const runs = pdftoppmRuns(target.pages, target.drawsImages);
      for (const [first, last] of runs) {
        if (first === last && runs.length > 1) {
          const range = ['-f', String(first), '-l', String(first), '-singlefile'];
          const failure = await run([...common, ...range, input, `${prefix}-${first}`], job);
          if (failure !== undefined) return { failure: `rendering page ${first}: ${failure}` };
          paths.set(first, resolve(job.workDir, `${prefix}-${first}.${extension}`));
          continue;
        }
        const range = ['-f', String(first), '-l', String(last)];
        const failure = await run([...common, ...range, input, prefix], job);
        if (failure === undefined) continue;
        const pages = runs.length > 1 ? ` pages ${first}-${last}` : '';
        return { failure: `rendering${pages}: ${failure}` };
      }
      // pdftoppm pads page numbers to the width of the document's page count: page-1.pgm or page-01.pgm.
      if (paths.size < target.pages.length) {
        for (const file of await readdir(job.workDir)) {
          const page =
            file.startsWith(`${prefix}-`) && file.endsWith(`.${extension}`)
              ? file.slice(prefix.length + 1, -4)
              : '';
          if (/^\d+$/.test(page) && !paths.has(Number(page)))
            paths.set(Number(page), resolve(job.workDir, file));
        }
      }
      return renderedFiles(
        target.pages.map((page) => paths.get(page) ?? resolve(job.workDir, `${prefix}-${page}.${extension}`)),
      );
    },
  };
}
