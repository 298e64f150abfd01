// The reference tool, whole: OCRmyPDF 14 run like every other tool (runTool: no
// shell, its own process group, a timeout, a memory limit per process, OMP_THREAD_LIMIT=1 so each of
// its `--jobs` tesseract runs uses one core). It reports nothing per page, so each page's tesseract run
// is asked for a TSV as well (a config file) and the temporary folder is kept: a page with a TSV was
// read, and the TSV gives its confidence and the text file its text. Progress a page at a time comes from
// a plugin of ours (ocrmypdf-progress.ts).
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InternalError, InvalidInputError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { meanWordConfidence } from '../ocr/native-tesseract.js';
import { isOutOfMemory } from '../ocr/recognizer.js';
import { type MemoryLimit, runTool, type ToolResult } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { WorkContext } from '../types.js';
import { type DocumentReader, type ReadPlan, readFailure } from './document-reader.js';
import { pageText } from './document-text.js';
import { type ImageDocumentOptions, imageAsDocument } from './image-document.js';
import { ocrmypdfArgs } from './ocrmypdf-args.js';
import { followProgress, PROGRESS_PLUGIN, withoutProgress } from './ocrmypdf-progress.js';
import { pageListText } from './page-selection.js';
import type { OcrPdfPageOutcome } from './types.js';

export interface OcrmypdfReaderOptions extends ImageDocumentOptions {
  ocrmypdf: ToolInfo;
  /** One run takes one of the server's CPU slots. */
  cpuSlots: CpuSlots;
  /** The server's job concurrency: the most worker processes one run may start. */
  concurrency: number;
  maxImagePixels: number;
  memoryLimit: MemoryLimit;
  tessdataDir?: string | undefined;
  /** The budget of one page per worker; a run gets one per round of `concurrency` pages. */
  timeoutMs: number;
}

/** OCRmyPDF's exit codes (ocrmypdf/exceptions.py ExitCode) that blame the input. */
const INPUT_FILE = 2;
const ENCRYPTED_PDF = 8;

/** `000007_ocr_tess.tsv`: OCRmyPDF names its per-page files by the 1-based page, six digits. */
function pageFile(folder: string, page: number, extension: 'tsv' | 'txt'): string {
  return join(folder, `${String(page).padStart(6, '0')}_ocr_tess.${extension}`);
}

async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function failure(exitCode: number, stderr: string, plan: ReadPlan, o: OcrmypdfReaderOptions): Error {
  const said = stderr.trim().split('\n').slice(-3).join(' ');
  if (/decompression bomb/i.test(stderr)) {
    return new InvalidInputError(
      `${plan.input.label} holds an image larger than this server reads ` +
        `(${o.maxImagePixels.toLocaleString('en-US')} pixels)`,
    );
  }
  if (exitCode === ENCRYPTED_PDF) {
    return new InvalidInputError(
      `${plan.input.label} is encrypted. Remove the password and upload it again.`,
    );
  }
  if (exitCode === INPUT_FILE) {
    return new InvalidInputError(`${plan.input.label} could not be read for OCR: ${said}`);
  }
  if (isOutOfMemory(stderr) || /MemoryError/.test(stderr)) {
    return new InvalidInputError(
      `${plan.input.label} needs more memory to read than this server allows ` +
        `(${Math.round(o.memoryLimit.bytes / 2 ** 20)} MiB per process): send smaller pages`,
    );
  }
  return new InternalError(`OCRmyPDF exited with code ${exitCode}: ${said}`);
}

export function ocrmypdfReader(o: OcrmypdfReaderOptions): DocumentReader {
  return {
    info: { name: 'ocrmypdf', version: o.ocrmypdf.version },
    method: 'ocrmypdf',
    async read(upload: ReadPlan, job: WorkContext, onProgress) {
      // An image as the other engines read it (img2pdf, OCRmyPDF's own route, refuses transparency).
      const plan =
        upload.doc.kind === 'pdf' ? upload : await imageAsDocument(upload, upload.doc.format, job, o);
      const folder = await mkdtemp(join(job.workDir, 'ocrmypdf-'));
      const config = join(folder, 'tsv.cfg');
      await writeFile(config, 'tessedit_create_tsv 1\n');
      const plugin = join(folder, 'pdn_progress.py');
      await writeFile(plugin, PROGRESS_PLUGIN);
      const output = join(folder, 'searchable.pdf');
      const jobs = Math.max(1, Math.min(o.concurrency, plan.pages.length));
      const every = plan.pages.length === plan.doc.pageCount;
      const args = ocrmypdfArgs({
        request: plan.request,
        codes: plan.codes,
        jobs,
        pages: every ? undefined : pageListText(plan.pages),
        maxImagePixels: o.maxImagePixels,
        tesseractConfig: config,
        plugin,
        input: plan.doc.path,
        output,
      });
      const total = plan.pages.length;
      onProgress(0, total);
      // OCRmyPDF counts every page of the document (those outside `pages` pass quickly): scaled to ours.
      const onStderr = followProgress((done, of) =>
        onProgress(Math.floor((done * total) / Math.max(1, of)), total),
      );
      const rounds = Math.ceil(plan.pages.length / jobs);
      let result: ToolResult;
      try {
        result = await o.cpuSlots.run(
          () =>
            runTool(o.ocrmypdf.path, args, {
              cwd: folder,
              timeoutMs: o.timeoutMs * Math.max(1, rounds),
              signal: job.signal,
              env: {
                OMP_THREAD_LIMIT: '1',
                ...(o.tessdataDir === undefined ? {} : { TESSDATA_PREFIX: o.tessdataDir }),
              },
              memoryLimit: o.memoryLimit,
              onStderr,
            }),
          job.signal,
        );
      } catch (error) {
        throw readFailure(error, plan);
      }
      if (result.exitCode !== 0) throw failure(result.exitCode, withoutProgress(result.stderr), plan, o);
      const kept = (await readdir(folder)).find((name) => name.startsWith('ocrmypdf.io.'));
      if (kept === undefined)
        throw new InternalError('OCRmyPDF left no temporary folder to read its pages from');
      const temporary = join(folder, kept);
      const pages: OcrPdfPageOutcome[] = [];
      for (let page = 1; page <= plan.doc.pageCount; page += 1) {
        const tsv = await readIfThere(pageFile(temporary, page, 'tsv'));
        pages.push(
          tsv === undefined
            ? { status: 'skipped', confidence: null }
            : { status: 'ocred', confidence: meanWordConfidence(tsv) },
        );
      }
      onProgress(plan.pages.length, plan.pages.length);
      return {
        path: output,
        pages,
        async textOf(page) {
          if (pages[page - 1]?.status !== 'ocred') return undefined;
          return pageText((await readIfThere(pageFile(temporary, page, 'txt'))) ?? '');
        },
      };
    },
  };
}
