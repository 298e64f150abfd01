// Compress with Ghostscript, then qpdf's lossless pass when qpdf is installed (issue #3). Candidates:
// Ghostscript's output, that output after qpdf, and qpdf alone on the input (cheap, and the only thing
// that helps a PDF whose images Ghostscript passes through untouched). The smallest wins.
import { stat } from 'node:fs/promises';
import type { JobQueue } from '../job-queue.js';
import type { QpdfRun } from '../pdf/run-qpdf.js';
import { inspectPdf } from '../pdf-inspect.js';
import type { DetectedTools, ToolInfo } from '../tools.js';
import type { CompressEngine, CompressionLevel, CompressOutput, InputFile, JobContext } from '../types.js';
import { type Candidate, candidate, keepOriginal, smallest } from './candidates.js';
import { runGhostscript } from './ghostscript.js';
import { checkOutputPages } from './output-check.js';
import { qpdfLosslessPass } from './qpdf-pass.js';

export interface GhostscriptEngineOptions {
  gs: ToolInfo;
  tools: DetectedTools;
  queue: JobQueue;
  maxPages: number;
  timeoutMs: number;
}

export function createGhostscriptEngine(o: GhostscriptEngineOptions): CompressEngine {
  async function compress(
    input: InputFile,
    level: CompressionLevel,
    job: JobContext,
  ): Promise<CompressOutput> {
    // Ghostscript must never see a file that is empty, not a PDF (it *executes* PostScript), encrypted
    // or page-less, nor one over the page cap (issue #3).
    const { pageCount } = await inspectPdf(input, {
      maxPages: o.maxPages,
      tools: o.tools,
      timeoutMs: o.timeoutMs,
      signal: job.signal,
    });
    const inputSize = (await stat(input.path)).size;
    const rewritten = await runGhostscript(o.gs, level, input.path, 'ghostscript.pdf', job, o.timeoutMs);
    const candidates: Candidate[] = [await candidate(rewritten, 'ghostscript')];
    const { qpdf } = o.tools;
    if (qpdf !== undefined) {
      const run: QpdfRun = { qpdf, cwd: job.workDir, timeoutMs: o.timeoutMs, signal: job.signal };
      candidates.push(
        await candidate(await qpdfLosslessPass(rewritten, 'ghostscript-qpdf.pdf', run), 'ghostscript+qpdf'),
        await candidate(await qpdfLosslessPass(input.path, 'qpdf.pdf', run), 'qpdf'),
      );
    }
    const best = smallest(inputSize, candidates);
    if (best === undefined) return { ...(await keepOriginal(input.path, job.workDir, inputSize)), pageCount };
    await checkOutputPages(best.path, pageCount, {
      tools: o.tools,
      cwd: job.workDir,
      timeoutMs: o.timeoutMs,
      signal: job.signal,
    });
    return { ...best, pageCount };
  }

  return {
    info: { name: 'ghostscript', version: o.gs.version },
    compress: (input, level, job) => o.queue.run(() => compress(input, level, job), job.signal),
  };
}
