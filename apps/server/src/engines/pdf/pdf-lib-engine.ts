// Merge and split with pdf-lib, for machines without qpdf. All PDF work happens in worker threads
// (run-pdf-lib-task.ts); this side only checks the bytes of each upload and describes the outputs.
import { createRequire } from 'node:module';
import type { CpuSlots } from '../cpu-slots.js';
import { checkPdfBytes } from '../pdf-inspect.js';
import type { InputFile, PageBudget, PdfEngine, PdfOutput, SplitOutput, WorkContext } from '../types.js';
import { describeOutput, mergedPath } from './outputs.js';
import { runPdfLibTask } from './run-pdf-lib-task.js';

export interface PdfLibEngineOptions {
  cpuSlots: CpuSlots;
  maxPages: number;
  timeoutMs: number;
}

/** Read from pdf-lib's package.json, so the main thread never loads pdf-lib itself. */
export const PDF_LIB_VERSION: string = createRequire(import.meta.url)('pdf-lib/package.json').version;

export function createPdfLibEngine(o: PdfLibEngineOptions): PdfEngine {
  async function merge(
    inputs: readonly InputFile[],
    job: WorkContext,
    budget: PageBudget,
  ): Promise<PdfOutput> {
    for (const input of inputs) await checkPdfBytes(input);
    const output = mergedPath(job.workDir);
    const { pageCount } = await runPdfLibTask(
      'merge',
      { inputs, maxPages: o.maxPages, budget, output },
      { timeoutMs: o.timeoutMs, signal: job.signal },
    );
    return describeOutput(output, pageCount);
  }

  async function split(
    input: InputFile,
    ranges: string,
    job: WorkContext,
    budget: PageBudget,
  ): Promise<SplitOutput[]> {
    await checkPdfBytes(input);
    const parts = await runPdfLibTask(
      'split',
      { input, ranges, maxPages: o.maxPages, budget, workDir: job.workDir },
      { timeoutMs: o.timeoutMs, signal: job.signal, blame: input.label },
    );
    return Promise.all(
      parts.map(async (part) => ({
        ...(await describeOutput(part.path, part.pageCount)),
        pages: part.pages,
      })),
    );
  }

  return {
    info: { name: 'pdf-lib', version: PDF_LIB_VERSION },
    merge: (inputs, job, budget) => o.cpuSlots.run(() => merge(inputs, job, budget), job.signal),
    split: (input, ranges, job, budget) =>
      o.cpuSlots.run(() => split(input, ranges, job, budget), job.signal),
  };
}
