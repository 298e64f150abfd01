// qpdf's lossless rewrite: objects packed into compressed object streams, new streams deflated at
// level 9. Deliberately without --recompress-flate: it drops PNG predictors and made a PNG-image PDF
// 2.3x larger.
import { resolve } from 'node:path';
import { walkPageTreeOf } from '../pdf/page-walk/page-tree-walk.js';
import { type QpdfRun, qpdfSucceeded, qpdfTimedOut, runQpdf } from '../pdf/run-qpdf.js';
import { rewriteWithPageCounts } from './page-tree-counts.js';

/** The pass's settings, before the input and output paths. */
const PASS_ARGS = ['--object-streams=generate', '--compression-level=9'] as const;

/**
 * Writes the rewrite of `inputPath` to `outputName` inside the run's folder and returns its path,
 * and whether qpdf had to repair the file on the way (it warned, exit code 3), or qpdf's reason
 * when it cannot rewrite the file. Passing inspection (a walk of the page tree) does not promise a
 * rewrite: a damaged file whose repair leaves an object numbered 2^31-1 walks fine, but qpdf then
 * has no number left for the object streams it makes ("max object id is too high to create new
 * objects"; found by the fuzzer, where it was a 500). Like a Ghostscript failure, that only means
 * one candidate fewer, and so does a run out of time.
 * Given the `pages` inspection found, an output whose page tree keeps the input's wrong root /Count
 * (qpdf copies the tree as it is) is written again with the counts corrected (page-tree-counts.ts).
 */
export async function qpdfLosslessPass(
  inputPath: string,
  outputName: string,
  run: QpdfRun,
  pages?: number,
): Promise<{ path: string; repaired: boolean } | { failure: string }> {
  const outputPath = resolve(run.cwd, outputName);
  // Absolute paths: qpdf reads an argument starting with `@` as a file of arguments.
  const args = [...PASS_ARGS, resolve(inputPath), outputPath];
  let result: Awaited<ReturnType<typeof runQpdf>>;
  try {
    result = await runQpdf(args, run);
    if (pages !== undefined && qpdfSucceeded(result)) {
      // Read here, in this process, from the output just written: only a sure walk that finds the
      // pages inspection found, under a root that says otherwise, is worth a second rewrite.
      const walk = await walkPageTreeOf(outputPath, pages);
      if (walk !== undefined && walk.pageCount === pages && walk.rootCount !== pages)
        await rewriteWithPageCounts(inputPath, outputPath, PASS_ARGS, run);
    }
  } catch (error) {
    if (qpdfTimedOut(error)) return { failure: `qpdf did not finish within ${run.timeoutMs / 1000} s` };
    throw error;
  }
  if (!qpdfSucceeded(result)) {
    const reason = result.stderr.trim().split('\n').pop() ?? '';
    return { failure: `qpdf exited with ${result.exitCode}: ${reason}` };
  }
  return { path: outputPath, repaired: result.exitCode !== 0 };
}
