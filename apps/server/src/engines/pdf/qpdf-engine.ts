// Merge and split with qpdf subprocesses (measured 0.22 s and 39 MiB for 20x50 pages, against
// pdf-lib's 1.0 s and 150 MiB). Inputs are inspected first (pdf-inspect.ts: the pages really there, the
// file tools must read), so a qpdf failure afterwards is blamed on the input qpdf names or crashes on, or
// else on the server; every output is checked before it is returned (verifyQpdfOutput).
//
// Both build their outputs from `--empty`: with the input itself as the base (`--pages . 1-3`), qpdf
// 11.3 removes every page it does not keep one by one, in time quadratic in the document's pages (one
// page of a 5000-page file: 4 s of CPU, 0.26 s from `--empty`; one split took 367 s). The parts
// keep their pages, annotations and form fields, not the document's outline or attachments: what the
// pdf-lib engine gives too.
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import type { CpuSlots } from '../cpu-slots.js';
import { checkMergeBudget } from '../page-budget.js';
import { parsePageRanges } from '../page-ranges.js';
import { inspectPdf, inspectPdfs, type PdfInspection } from '../pdf-inspect.js';
import type { ToolResult } from '../run-tool.js';
import type { DetectedTools, ToolInfo } from '../tools.js';
import type { InputFile, PageBudget, PdfEngine, PdfOutput, SplitOutput, WorkContext } from '../types.js';
import { describeOutput, mergedPath, partPath } from './outputs.js';
import { damaged, unprocessable } from './pdf-input-errors.js';
import { type QpdfRun, qpdfSucceeded, runQpdf, verifyQpdfOutput } from './run-qpdf.js';

export interface QpdfEngineOptions {
  qpdf: ToolInfo;
  tools: DetectedTools;
  cpuSlots: CpuSlots;
  maxPages: number;
  timeoutMs: number;
}

/** qpdf is never killed by a signal on purpose: runTool reports that as exit code 128 + the signal. */
function crashed(result: ToolResult): boolean {
  return result.exitCode >= 128;
}

/** An input as qpdf reads it: the file inspection chose, by absolute path (after `--pages`, a relative
 * name such as "1-3" would read as a page range, and one starting with `@` as a file of arguments). */
interface Inspected extends InputFile {
  pageCount: number;
}

function readable(input: InputFile, inspection: PdfInspection): Inspected {
  return { label: input.label, path: resolve(inspection.path), pageCount: inspection.pageCount };
}

/** qpdf's errors (not its warnings) start "qpdf: <file>: ..." and name the file they concern. */
function namedInError(result: ToolResult, inputs: readonly InputFile[]): InputFile | undefined {
  const errors = result.stderr.split('\n').filter((line) => line.startsWith('qpdf: '));
  return inputs.find((input) => errors.some((line) => line.includes(resolve(input.path))));
}

export function createQpdfEngine(o: QpdfEngineOptions): PdfEngine {
  const runFor = (job: WorkContext): QpdfRun => ({
    qpdf: o.qpdf,
    cwd: job.workDir,
    timeoutMs: o.timeoutMs,
    signal: job.signal,
  });
  const inspectOptions = (job: WorkContext) => ({
    maxPages: o.maxPages,
    tools: o.tools,
    timeoutMs: o.timeoutMs,
    signal: job.signal,
  });

  /**
   * Explains a failed qpdf run over inputs that passed inspection. A crash names no file, nor do some
   * errors (a trailer's /Size of 10^20: "qpdf: overflow/underflow converting ... to 64-bit integer"),
   * so each input is then tried alone (copying its first page) until one fails too: the rare path
   * pays for it. Only a failure no input shows alone is the server's.
   */
  async function failure(result: ToolResult, inputs: readonly InputFile[], job: WorkContext): Promise<Error> {
    const named = namedInError(result, inputs);
    if (named !== undefined) return damaged(named.label);
    const probe = join(job.workDir, 'failure-probe.pdf');
    for (const input of inputs) {
      const alone = await runQpdf(['--empty', '--pages', input.path, '1', '--', probe], runFor(job));
      await rm(probe, { force: true });
      if (crashed(alone)) return unprocessable(input.label);
      if (!qpdfSucceeded(alone)) return damaged(input.label);
    }
    return new InternalError(`qpdf exited with ${result.exitCode}: ${result.stderr.trim()}`);
  }

  async function merge(
    inputs: readonly InputFile[],
    job: WorkContext,
    budget: PageBudget,
  ): Promise<PdfOutput> {
    const { files: inspected, pageCount } = await inspectPdfs(inputs, inspectOptions(job));
    checkMergeBudget(pageCount, inputs.length, budget);
    const output = mergedPath(job.workDir);
    const sources = inspected.map((file) => ({ label: file.label, path: resolve(file.path) }));
    const files = sources.map((source) => source.path);
    const result = await runQpdf(['--empty', '--pages', ...files, '--', output], runFor(job));
    if (!qpdfSucceeded(result)) throw await failure(result, sources, job);
    await verifyQpdfOutput(output, pageCount, runFor(job));
    return describeOutput(output, pageCount);
  }

  async function split(
    input: InputFile,
    ranges: string,
    job: WorkContext,
    budget: PageBudget,
  ): Promise<SplitOutput[]> {
    const source = readable(input, await inspectPdf(input, inspectOptions(job)));
    const parts: SplitOutput[] = [];
    for (const [index, range] of parsePageRanges(ranges, source.pageCount, budget).entries()) {
      const output = partPath(job.workDir, index);
      const expected = range.last - range.first + 1;
      const args = ['--empty', '--pages', source.path, `${range.first}-${range.last}`, '--', output];
      const result = await runQpdf(args, runFor(job));
      if (!qpdfSucceeded(result)) throw await failure(result, [source], job);
      await verifyQpdfOutput(output, expected, runFor(job));
      parts.push({ ...(await describeOutput(output, expected)), pages: range.text });
    }
    return parts;
  }

  return {
    info: { name: 'qpdf', version: o.qpdf.version },
    merge: (inputs, job, budget) => o.cpuSlots.run(() => merge(inputs, job, budget), job.signal),
    split: (input, ranges, job, budget) =>
      o.cpuSlots.run(() => split(input, ranges, job, budget), job.signal),
  };
}
