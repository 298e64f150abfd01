// The native tools without OCRmyPDF (issue #17, engine 2): every page read as its own unit of work
// through the server's CPU slots (native-page.ts), so a 300-page scan uses every slot and reports
// progress a page at a time, then the pages put together by qpdf in two runs whatever the page count:
// replaced pages (`force`) and new rotations into the original, then every text layer laid over its
// page (`--overlay`), the original's images and document-level parts (outline, forms, metadata) kept.
// OCRmyPDF-only options (`redo`, `deskew`, `pdfa`) are refused before any work (openapi.yaml `ocrPdf`).
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError, InternalError, InvalidInputError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { meanWordConfidence } from '../ocr/native-tesseract.js';
import { qpdfSucceeded, runQpdf, verifyQpdfOutput } from '../pdf/run-qpdf.js';
import { runTool, ToolTimeoutError } from '../run-tool.js';
import type { WorkContext } from '../types.js';
import type { DocumentReader, ReadPlan } from './document-reader.js';
import { pageText } from './document-text.js';
import {
  type NativePageOptions,
  type NativePageRead,
  readNativePage,
  TESSERACT_OUTPUTS,
} from './native-page.js';
import { pageListText } from './page-selection.js';
import type { OcrPdfPageOutcome, OcrPdfProgress } from './types.js';

export interface NativeReaderOptions extends NativePageOptions {
  cpuSlots: CpuSlots;
  /** The server's job concurrency: this document's pages queued at once. */
  concurrency: number;
}

/** Options only OCRmyPDF implements: refused by name rather than silently ignored. */
function refuseUnsupported(plan: ReadPlan): void {
  const { request } = plan;
  const unsupported = [
    ...(request.mode === 'redo' ? ['mode=redo'] : []),
    ...(request.deskew ? ['deskew=true'] : []),
    ...(request.output === 'pdfa' ? ['output=pdfa'] : []),
  ];
  if (unsupported.length === 0) return;
  throw new InvalidInputError(
    `${unsupported.join(', ')} ${unsupported.length === 1 ? 'needs' : 'need'} OCRmyPDF, which this server does not have; ` +
      'its OCR of documents uses tesseract (mode skip or force, rotate, pages, output pdf).',
  );
}

function toApiError(error: unknown, plan: ReadPlan): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof ToolTimeoutError) {
    return new InternalError(`OCR of ${plan.input.label} did not finish within ${error.timeoutMs} ms`, {
      cause: error,
    });
  }
  return error;
}

/**
 * Each page through the CPU slots, at most `concurrency` of this document's pages queued at once, so other
 * requests' work takes its turn between pages instead of waiting behind a 300-page scan (the slots are
 * first come, first served). The first failure stops the pages not yet started.
 */
async function readPages(
  plan: ReadPlan,
  job: WorkContext,
  o: NativeReaderOptions,
  onProgress: OcrPdfProgress,
): Promise<Map<number, NativePageRead>> {
  const stop = new AbortController();
  const signal = AbortSignal.any([job.signal, stop.signal]);
  const reads = new Map<number, NativePageRead>();
  const waiting = [...plan.pages];
  onProgress(0, plan.pages.length);
  const readOne = async (page: number) => {
    const folder = join(job.workDir, 'pages', String(page));
    await mkdir(folder, { recursive: true });
    const pageJob = {
      pdf: plan.doc.path,
      page,
      label: plan.input.label,
      mode: plan.request.mode,
      rotate: plan.request.rotate,
      codes: plan.codes,
      folder,
      signal,
    };
    reads.set(page, await readNativePage(pageJob, o));
    onProgress(reads.size, plan.pages.length);
  };
  const lane = async () => {
    for (let page = waiting.shift(); page !== undefined; page = waiting.shift()) {
      await o.cpuSlots.run(() => readOne(page), signal);
    }
  };
  const lanes = Array.from({ length: Math.max(1, Math.min(o.concurrency, plan.pages.length)) }, () =>
    lane().catch((error: unknown) => {
      stop.abort(error);
      throw error;
    }),
  );
  const settled = await Promise.allSettled(lanes);
  const failed = settled.find((result) => result.status === 'rejected');
  // The first failure, not the aborts it caused in the other lanes.
  if (failed !== undefined) throw stop.signal.reason ?? (failed as PromiseRejectedResult).reason;
  return reads;
}

/** The original with replaced pages and new rotations, or the original itself when there are none. */
async function withPagesReplaced(
  plan: ReadPlan,
  reads: Map<number, NativePageRead>,
  job: WorkContext,
  o: NativeReaderOptions,
) {
  const source = plan.doc.path;
  const segments: string[] = [];
  const rotations: string[] = [];
  let runStart = 1;
  const flush = (end: number) => {
    if (end >= runStart) segments.push(source, end === runStart ? String(runStart) : `${runStart}-${end}`);
  };
  for (let page = 1; page <= plan.doc.pageCount; page += 1) {
    const read = reads.get(page);
    if (read?.status !== 'ocred') continue;
    if (read.rotation !== undefined) rotations.push(`--rotate=${read.rotation}:${page}`);
    if (!read.replaces) continue;
    flush(page - 1);
    segments.push(read.layer, '1');
    runStart = page + 1;
  }
  if (segments.length === 0 && rotations.length === 0) return source;
  flush(plan.doc.pageCount);
  const output = join(job.workDir, 'replaced.pdf');
  const args =
    segments.length === 2 && segments[0] === source ? [source] : [source, '--pages', ...segments, '--'];
  await qpdf([...args, ...rotations, output], job, o);
  return output;
}

async function qpdf(args: string[], job: WorkContext, o: NativeReaderOptions): Promise<void> {
  const result = await runQpdf(args, {
    qpdf: o.tools.qpdf,
    cwd: job.workDir,
    timeoutMs: o.timeoutMs,
    signal: job.signal,
  });
  if (!qpdfSucceeded(result))
    throw new InternalError(`qpdf exited with code ${result.exitCode}: ${result.stderr.trim()}`);
}

async function readPdf(plan: ReadPlan, job: WorkContext, o: NativeReaderOptions, onProgress: OcrPdfProgress) {
  const reads = await readPages(plan, job, o, onProgress);
  const base = await withPagesReplaced(plan, reads, job, o);
  const overlaid = plan.pages.filter((page) => {
    const read = reads.get(page);
    return read?.status === 'ocred' && !read.replaces;
  });
  let output = base;
  if (overlaid.length > 0) {
    const layers = join(job.workDir, 'text-layers.pdf');
    const layerFiles = overlaid.flatMap((page) => {
      const read = reads.get(page);
      return read?.status === 'ocred' ? [read.layer, '1'] : [];
    });
    await qpdf(['--empty', '--pages', ...layerFiles, '--', layers], job, o);
    output = join(job.workDir, 'searchable.pdf');
    await qpdf([base, '--overlay', layers, `--to=${pageListText(overlaid)}`, '--', output], job, o);
  }
  const pages: OcrPdfPageOutcome[] = [];
  for (let page = 1; page <= plan.doc.pageCount; page += 1) {
    const read = reads.get(page);
    pages.push(
      read?.status === 'ocred'
        ? { status: 'ocred', confidence: read.confidence }
        : { status: 'skipped', confidence: null },
    );
  }
  return {
    path: output,
    pages,
    async textOf(page: number) {
      const read = reads.get(page);
      return read?.status === 'ocred' ? pageText(await readFile(read.textPath, 'utf8')) : undefined;
    },
  };
}

/** An image (every page of a TIFF) in one tesseract run: its full PDF renderer writes the pages, image and text. */
async function readImage(
  plan: ReadPlan,
  job: WorkContext,
  o: NativeReaderOptions,
  onProgress: OcrPdfProgress,
) {
  onProgress(0, plan.pages.length);
  const base = join(job.workDir, 'image-ocr');
  await o.cpuSlots.run(async () => {
    const result = await runTool(
      o.tools.tesseract.path,
      [plan.doc.path, base, '-l', plan.codes, '--tessdata-dir', o.tessdataDir, ...TESSERACT_OUTPUTS],
      {
        cwd: job.workDir,
        timeoutMs: o.timeoutMs * plan.doc.pageCount,
        signal: job.signal,
        memoryLimit: o.memoryLimit,
        env: { OMP_THREAD_LIMIT: '1' },
      },
    );
    if (result.exitCode !== 0)
      throw new InvalidInputError(
        `${plan.input.label} could not be read as an image: ${result.stderr.trim().split('\n').pop() ?? ''}`,
      );
  }, job.signal);
  const [text, tsv] = await Promise.all([readFile(`${base}.txt`, 'utf8'), readFile(`${base}.tsv`, 'utf8')]);
  const texts = (text.endsWith('\f') ? text.slice(0, -1) : text).split('\f');
  const [header = '', ...rows] = tsv.split('\n');
  const pages: OcrPdfPageOutcome[] = Array.from({ length: plan.doc.pageCount }, (_, index) => ({
    status: 'ocred',
    confidence: meanWordConfidence(
      [header, ...rows.filter((row) => row.split('\t')[1] === String(index + 1))].join('\n'),
    ),
  }));
  onProgress(plan.pages.length, plan.pages.length);
  return { path: `${base}.pdf`, pages, textOf: async (page: number) => texts[page - 1] ?? '' };
}

export function nativeReader(o: NativeReaderOptions): DocumentReader {
  return {
    info: { name: 'tesseract', version: o.tools.tesseract.version },
    method: 'tesseract',
    async read(plan, job, onProgress) {
      refuseUnsupported(plan);
      try {
        const read =
          plan.doc.kind === 'pdf'
            ? await readPdf(plan, job, o, onProgress)
            : await readImage(plan, job, o, onProgress);
        await verifyQpdfOutput(read.path, plan.doc.pageCount, {
          qpdf: o.tools.qpdf,
          cwd: job.workDir,
          timeoutMs: o.timeoutMs,
          signal: job.signal,
        });
        return read;
      } catch (error) {
        throw toApiError(error, plan);
      }
    },
  };
}
