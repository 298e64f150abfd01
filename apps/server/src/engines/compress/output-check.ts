// Every output's page count is proven before it is returned: Ghostscript writes a blank one-page PDF for
// input it cannot read and qpdf once exited 0 after writing a truncated file.
import { InternalError, InvalidInputError } from '../../errors.js';
import { runPdfLibTask } from '../pdf/run-pdf-lib-task.js';
import { verifyQpdfOutput } from '../pdf/run-qpdf.js';
import type { DetectedTools } from '../tools.js';

export interface OutputCheckOptions {
  tools: DetectedTools;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Throws InternalError unless the PDF at `path` opens and has exactly `expectedPages` pages. */
export async function checkOutputPages(
  path: string,
  expectedPages: number,
  o: OutputCheckOptions,
): Promise<void> {
  if (o.tools.qpdf !== undefined) {
    await verifyQpdfOutput(path, expectedPages, { ...o, qpdf: o.tools.qpdf });
    return;
  }
  let pageCount: number;
  try {
    // The page cap set to the expected count turns "more pages than expected" into a refusal too.
    ({ pageCount } = await runPdfLibTask(
      'inspect',
      { input: { path, label: path }, maxPages: expectedPages },
      o,
    ));
  } catch (error) {
    // The output is ours, not the client's: a verdict on it is a server failure.
    if (error instanceof InvalidInputError) {
      throw new InternalError(`output ${path} is unusable: ${error.message}`, { cause: error });
    }
    throw error;
  }
  if (pageCount !== expectedPages) {
    throw new InternalError(`output ${path} has ${pageCount} pages, expected ${expectedPages}`);
  }
}
