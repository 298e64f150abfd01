// Compress with Ghostscript, then qpdf's lossless pass when qpdf is installed (issue #3). Candidates:
// Ghostscript's output and that output after qpdf; only when neither beats the input (camera JPEGs
// at `low`, README.md), qpdf alone on the input, the lossless tidy-up issue #3 asks for before giving
// up. The smallest wins; none smaller means `original`.
import { stat } from 'node:fs/promises';
import type { JobQueue } from '../job-queue.js';
import type { QpdfRun } from '../pdf/run-qpdf.js';
import { inspectPdf } from '../pdf-inspect.js';
import type { DetectedTools, ToolInfo } from '../tools.js';
import type { CompressEngine, CompressionLevel, CompressOutput, InputFile, JobContext } from '../types.js';
import { type Candidate, candidate, keepOriginal, smallest } from './candidates.js';
import { hasCompositeFonts } from './font-survey.js';
import { runGhostscript } from './ghostscript.js';
import { checkOutputPages } from './output-check.js';
import { hasLegacyInterpreter } from './presets.js';
import { qpdfLosslessPass } from './qpdf-pass.js';

export interface GhostscriptEngineOptions {
  gs: ToolInfo;
  tools: DetectedTools;
  queue: JobQueue;
  maxPages: number;
  timeoutMs: number;
}

export function createGhostscriptEngine(o: GhostscriptEngineOptions): CompressEngine {
  const { gs } = o;
  const { qpdf } = o.tools;
  const legacyAvailable = hasLegacyInterpreter(gs.version);

  async function compress(
    input: InputFile,
    level: CompressionLevel,
    job: JobContext,
  ): Promise<CompressOutput> {
    const { timeoutMs } = o;
    // Ghostscript must never see a file that is empty, not a PDF (it *executes* PostScript), encrypted
    // or page-less, nor one over the page cap (issue #3); it reads the copy inspection says starts at
    // `%PDF-` (issue #11.1).
    const { pageCount, path: pdfPath } = await inspectPdf(input, {
      maxPages: o.maxPages,
      tools: o.tools,
      timeoutMs,
      signal: job.signal,
    });
    const inputSize = (await stat(input.path)).size;
    const run: QpdfRun | undefined =
      qpdf === undefined ? undefined : { qpdf, cwd: job.workDir, timeoutMs, signal: job.signal };
    // Without qpdf there is no cheap way to look at the fonts, so the default interpreter it is.
    const legacyInterpreter =
      legacyAvailable && run !== undefined && (await hasCompositeFonts(input.path, run));
    const rewritten = await runGhostscript(
      { gs, level, inputPath: pdfPath, outputName: 'ghostscript.pdf', timeoutMs, legacyInterpreter },
      job,
    );
    const candidates: Candidate[] = [await candidate(rewritten, 'ghostscript')];
    if (run !== undefined) {
      const packed = await qpdfLosslessPass(rewritten, 'ghostscript-qpdf.pdf', run);
      candidates.push(await candidate(packed, 'ghostscript+qpdf'));
    }
    let best = smallest(inputSize, candidates);
    if (best === undefined && run !== undefined) {
      const tidied = await qpdfLosslessPass(input.path, 'qpdf.pdf', run);
      best = smallest(inputSize, [await candidate(tidied, 'qpdf')]);
    }
    if (best === undefined) return { ...(await keepOriginal(input.path, job.workDir, inputSize)), pageCount };
    await checkOutputPages(best.path, pageCount, {
      tools: o.tools,
      cwd: job.workDir,
      timeoutMs,
      signal: job.signal,
    });
    return { ...best, pageCount };
  }

  return {
    info: { name: 'ghostscript', version: gs.version },
    compress: (input, level, job) => o.queue.run(() => compress(input, level, job), job.signal),
  };
}
