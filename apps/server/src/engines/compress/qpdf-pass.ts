// qpdf's lossless rewrite: objects packed into compressed object streams, new streams deflated at
// level 9. Deliberately without --recompress-flate: it drops PNG predictors and made a PNG-image PDF
// 2.3x larger (issue #3).
import { resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import { type QpdfRun, qpdfSucceeded, runQpdf } from '../pdf/run-qpdf.js';

/** Writes the rewrite of `inputPath` to `outputName` inside the run's folder and returns its path. */
export async function qpdfLosslessPass(inputPath: string, outputName: string, run: QpdfRun): Promise<string> {
  const outputPath = resolve(run.cwd, outputName);
  // Absolute paths: qpdf reads an argument starting with `@` as a file of arguments.
  const args = ['--object-streams=generate', '--compression-level=9', resolve(inputPath), outputPath];
  const result = await runQpdf(args, run);
  // The input already passed qpdf's own inspection, so a failure here is the tool's, not the file's.
  if (!qpdfSucceeded(result)) {
    throw new InternalError(`qpdf lossless pass exited with ${result.exitCode}: ${result.stderr.trim()}`);
  }
  return outputPath;
}
