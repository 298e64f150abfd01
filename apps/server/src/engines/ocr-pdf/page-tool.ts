// A tool run on one page of a document: pdftoppm, qpdf or tesseract, in the page's folder,
// under the memory limit, or the same page's work in an OCR process. A page that does not fit the limit
// is the client's to fix (smaller pages, 400); any other failure is ours.
import { InternalError, InvalidInputError } from '../../errors.js';
import { isOutOfMemory, OcrJobError } from '../ocr/recognizer.js';
import { type MemoryLimit, runTool } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';

export interface PageToolJob {
  page: number;
  /** The input's name for messages. */
  label: string;
  /** A folder of this page's own, in the request's work folder. */
  folder: string;
  signal: AbortSignal;
}

export interface PageToolLimits {
  memoryLimit: MemoryLimit;
  timeoutMs: number;
}

/** `Page 3 of "scan.pdf"`, for messages. */
export function pageName(job: PageToolJob): string {
  return `Page ${job.page} of ${job.label}`;
}

/** The page (or image) `what` does not fit the memory limit to be drawn or read. */
export function needsMoreMemory(what: string, memoryLimit: MemoryLimit, cause?: unknown) {
  return new InvalidInputError(
    `${what} needs more memory to read than this server allows ` +
      `(${Math.round(memoryLimit.bytes / 2 ** 20)} MiB): send smaller pages`,
    { cause },
  );
}

/** The image OCR's failures of a page the document's client can fix are theirs (400), the rest ours. */
export function pageFailure(error: unknown, what: string, memoryLimit: MemoryLimit): unknown {
  if (!(error instanceof OcrJobError)) return error;
  if (error.kind === 'memory' || isOutOfMemory(error.message))
    return needsMoreMemory(what, memoryLimit, error);
  if (error.kind === 'unreadable' || error.kind === 'over-cap') {
    return new InvalidInputError(`${what} could not be read as an image: ${error.message}`, {
      cause: error,
    });
  }
  return error;
}

export async function runPageTool(
  tool: ToolInfo,
  args: string[],
  job: PageToolJob,
  o: PageToolLimits,
  env?: Record<string, string>,
) {
  const result = await runTool(tool.path, args, {
    cwd: job.folder,
    timeoutMs: o.timeoutMs,
    signal: job.signal,
    memoryLimit: o.memoryLimit,
    ...(env === undefined ? {} : { env }),
  });
  if (result.exitCode === 0) return result;
  if (isOutOfMemory(result.stderr) || result.exitCode > 128)
    throw needsMoreMemory(pageName(job), o.memoryLimit);
  throw new InternalError(
    `${tool.path} exited with code ${result.exitCode} on page ${job.page}: ${result.stderr.trim()}`,
  );
}
