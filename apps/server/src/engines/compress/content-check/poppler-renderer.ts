// The content check's first renderer when poppler is installed (issue #9): pdftoppm draws the pages of
// input and candidate alike, independently of the Ghostscript that rewrote them. A check drawn by the
// rewriter itself compares two equally wrong pictures where the rewriter misreads the input: Ghostscript
// 10.00 drew ImageMagick's JPEG 2000 image with a soft mask wrongly in the input and in its own output,
// so its renders agreed (33 dB) while poppler's showed the image gone (8 dB). It is also cheaper to
// start: 10-20 ms for a text page, against 80-140 ms for Ghostscript (measured on the corpus).
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { runTool, ToolAbortedError } from '../../run-tool.js';
import type { ToolInfo } from '../../tools.js';
import type { PageRenderer } from './render.js';
import { renderedFiles } from './render.js';

/** Whether `pages` run without a gap, so one pdftoppm run (it takes a range, not a list) draws them all. */
export function isRange(pages: readonly number[]): boolean {
  return pages.every((page, index) => index === 0 || page === (pages[index - 1] as number) + 1);
}

/**
 * pdftoppm in greyscale. A sample without gaps (every page of a short file) is one run; a spread over
 * a long file is one run per sampled page, since drawing the pages between would cost more than
 * starting pdftoppm again.
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
      const common = ['-q', '-gray', '-r', String(dpi)];
      const [first, last] = [target.pages[0] as number, target.pages.at(-1) as number];
      if (isRange(target.pages)) {
        const prefix = `${target.name}-page`;
        const failure = await run([...common, '-f', String(first), '-l', String(last), input, prefix], job);
        if (failure !== undefined) return { failure: `rendering: ${failure}` };
        // pdftoppm pads page numbers to the width of the document's page count: page-1.pgm or page-01.pgm.
        const written = new Map<number, string>();
        for (const file of await readdir(job.workDir)) {
          const page =
            file.startsWith(`${prefix}-`) && file.endsWith('.pgm') ? file.slice(prefix.length + 1, -4) : '';
          if (/^\d+$/.test(page)) written.set(Number(page), resolve(job.workDir, file));
        }
        const paths = target.pages.map(
          (page) => written.get(page) ?? resolve(job.workDir, `${prefix}-${page}.pgm`),
        );
        return renderedFiles(paths);
      }
      const paths: string[] = [];
      for (const page of target.pages) {
        const prefix = `${target.name}-page-${page}`;
        const range = ['-f', String(page), '-l', String(page), '-singlefile'];
        const failure = await run([...common, ...range, input, prefix], job);
        if (failure !== undefined) return { failure: `rendering page ${page}: ${failure}` };
        paths.push(resolve(job.workDir, `${prefix}.pgm`));
      }
      return renderedFiles(paths);
    },
  };
}
