// Compress when Ghostscript is not installed, or the operator forced pdf-lib. pdf-lib works in a worker
// thread and can only tidy losslessly, so on image-heavy files `original` is common.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CpuSlots } from '../cpu-slots.js';
import { pdfFromHeader } from '../pdf/pdf-header.js';
import { PDF_LIB_VERSION } from '../pdf/pdf-lib-engine.js';
import { runPdfLibTask } from '../pdf/run-pdf-lib-task.js';
import { checkPdfBytes } from '../pdf-inspect.js';
import type { CompressEngine, CompressionLevel, CompressOutput, InputFile, WorkContext } from '../types.js';
import { beatsInput, candidate, keepOriginal } from './candidates.js';

export interface PdfLibCompressEngineOptions {
  cpuSlots: CpuSlots;
  maxPages: number;
  timeoutMs: number;
}

export function createPdfLibCompressEngine(o: PdfLibCompressEngineOptions): CompressEngine {
  async function compress(
    input: InputFile,
    level: CompressionLevel,
    job: WorkContext,
  ): Promise<CompressOutput> {
    // The bytes here; encryption, page count and the cap inside the worker as it loads the file
    // (pdf-lib-io.ts loadPdf), with the same verdicts as inspectPdf.
    const pdfPath = await pdfFromHeader(input, await checkPdfBytes(input));
    const inputSize = (await stat(input.path)).size;
    const outputPath = join(job.workDir, 'pdf-lib.pdf');
    // The task re-reads its output, proves the page count and compares its structure with the input's.
    const { pageCount, lost } = await runPdfLibTask(
      'compress',
      {
        input,
        outputPath,
        // The plan's budget, where it is the lower: the worker refuses the file before it compresses.
        maxPages: Math.min(o.maxPages, job.pagesRead?.maxPages ?? o.maxPages),
        dropMetadata: level !== 'low',
      },
      { timeoutMs: o.timeoutMs, signal: job.signal, blame: input.label },
    );
    if (lost !== undefined) job.log?.warn('compress candidate rejected', { method: 'pdf-lib', reason: lost });
    const rewritten = await candidate(outputPath, 'pdf-lib');
    const best = lost === undefined && beatsInput(rewritten, inputSize) ? rewritten : undefined;
    const output = best ?? (await keepOriginal(pdfPath, job.workDir));
    job.log?.info('compressed', {
      compress_level: level,
      method: output.method,
      pages: pageCount,
      input_bytes: inputSize,
      output_bytes: output.size,
    });
    return { ...output, pageCount };
  }

  return {
    info: { name: 'pdf-lib', version: PDF_LIB_VERSION },
    compress: (input, level, job) => o.cpuSlots.run(() => compress(input, level, job), job.signal),
    // Each task's worker thread ends with the task: nothing is kept between calls.
    close: async () => {},
  };
}
