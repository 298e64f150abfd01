// Puts a read document together (the native and tesseract.js engines): the original as the
// base file, so its images (never re-encoded), outline, forms and metadata are kept; each read page's text
// layer (tesseract's one-page PDF) laid over it in the page's displayed frame, over the page itself or a
// page standing in for it (straightened, or without an earlier layer), or under `force` the page replaced
// by tesseract's whole page; new rotations set. Two implementations of one interface: qpdf when installed
// (it streams), pdf-lib otherwise (it holds the document in memory).
import { join } from 'node:path';
import { InternalError } from '../../errors.js';
import { runPdfLibTask } from '../pdf/run-pdf-lib-task.js';
import { qpdfSucceeded, runQpdf, verifyQpdfOutput } from '../pdf/run-qpdf.js';
import type { ToolInfo } from '../tools.js';
import type { WorkContext } from '../types.js';
import { pageListText } from './page-selection.js';

export interface PageEdit {
  page: number;
  /** A one-page PDF: a text layer, or the page that replaces the original's. */
  layer: string;
  replaces: boolean;
  /** A one-page PDF standing in for the original's page, under `layer`. */
  replacement?: string | undefined;
  /** The page's new /Rotate. */
  rotation?: number | undefined;
}

/** The page that takes the original's place, if any: tesseract's whole page, or a stand-in under the layer. */
export function pageInPlace(edit: PageEdit): string | undefined {
  return edit.replaces ? edit.layer : edit.replacement;
}

export interface PageAssembler {
  readonly name: 'qpdf' | 'pdf-lib';
  /** `base` with `edits` (ascending pages) applied, written to `output`. */
  assemble(
    base: string,
    pageCount: number,
    edits: readonly PageEdit[],
    output: string,
    job: WorkContext,
  ): Promise<void>;
  /** One-page PDFs joined in order into `output` (an image's pages). */
  join(pages: readonly string[], output: string, job: WorkContext): Promise<void>;
}

/** qpdf writes the output and then checks it, as every qpdf output is checked (page count, no repair). */
export function qpdfAssembler(qpdfTool: ToolInfo, timeoutMs: number): PageAssembler {
  const runOf = (job: WorkContext) => ({ qpdf: qpdfTool, cwd: job.workDir, timeoutMs, signal: job.signal });
  const qpdf = async (args: string[], job: WorkContext) => {
    const result = await runQpdf(args, runOf(job));
    if (!qpdfSucceeded(result))
      throw new InternalError(`qpdf exited with code ${result.exitCode}: ${result.stderr.trim()}`);
  };
  const join1 = (pages: readonly string[]) => pages.flatMap((page) => [page, '1']);
  return {
    name: 'qpdf',
    async assemble(base, pageCount, edits, output, job) {
      // Replaced pages and new rotations first (`--pages`, the original's runs between them;
      // `--rotate`), then one overlay run.
      const segments: string[] = [];
      let next = 1;
      for (const edit of edits) {
        const page = pageInPlace(edit);
        if (page === undefined) continue;
        if (edit.page > next) segments.push(base, `${next}-${edit.page - 1}`);
        segments.push(page, '1');
        next = edit.page + 1;
      }
      const rotations = edits.flatMap((edit) =>
        edit.rotation === undefined ? [] : [`--rotate=${edit.rotation}:${edit.page}`],
      );
      let withPages = base;
      if (segments.length > 0 || rotations.length > 0) {
        if (segments.length > 0 && next <= pageCount) segments.push(base, `${next}-${pageCount}`);
        const pages = segments.length > 0 ? ['--pages', ...segments, '--'] : [];
        withPages = join(job.workDir, 'replaced.pdf');
        await qpdf([base, ...pages, ...rotations, withPages], job);
      }
      const overlaid = edits.filter((edit) => !edit.replaces);
      if (overlaid.length === 0) {
        await qpdf([withPages, output], job);
      } else {
        const layers = join(job.workDir, 'text-layers.pdf');
        await qpdf(['--empty', '--pages', ...join1(overlaid.map((edit) => edit.layer)), '--', layers], job);
        // `--overlay` places each layer in its page's rotated frame, as tesseract drew it.
        const to = pageListText(overlaid.map((edit) => edit.page));
        await qpdf([withPages, '--overlay', layers, `--to=${to}`, '--', output], job);
      }
      await verifyQpdfOutput(output, pageCount, runOf(job));
    },
    async join(pages, output, job) {
      await qpdf(['--empty', '--pages', ...join1(pages), '--', output], job);
      await verifyQpdfOutput(output, pages.length, runOf(job));
    },
  };
}

/**
 * Without qpdf: pdf-lib copies streams as they are, so the original's images are not re-encoded either.
 * It runs in the pdf-lib worker thread (pdf-lib-page-assembly.ts), never on the main thread.
 */
export function pdfLibAssembler(timeoutMs: number): PageAssembler {
  const runOf = (job: WorkContext) => ({ timeoutMs, signal: job.signal });
  return {
    name: 'pdf-lib',
    async assemble(base, _pageCount, edits, output, job) {
      await runPdfLibTask('assemblePages', { base, edits, output }, runOf(job));
    },
    async join(pages, output, job) {
      await runPdfLibTask('joinPages', { pages, output }, runOf(job));
    },
  };
}
