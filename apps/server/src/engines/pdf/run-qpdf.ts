// qpdf through runTool, with qpdf's exit codes read in one place. From qpdf's manual ("Exit Status"):
// 0 = success, 2 = errors, 3 = warnings only (the output is still written and usable, issue #2 asks
// to verify it anyway).
import { InternalError } from '../../errors.js';
import { runTool, ToolAbortedError, type ToolResult } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';

export interface QpdfRun {
  qpdf: ToolInfo;
  /** The per-request temp folder (runTool's working folder, HOME and TMPDIR). */
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export function qpdfSucceeded(result: ToolResult): boolean {
  return result.exitCode === 0 || result.exitCode === 3;
}

/**
 * Runs qpdf and resolves whatever its exit code. A timeout or a binary that cannot start is an
 * InternalError (the operator's problem, logged); a client abort stays a ToolAbortedError.
 */
export async function runQpdf(args: readonly string[], run: QpdfRun): Promise<ToolResult> {
  try {
    return await runTool(run.qpdf.path, args, { cwd: run.cwd, timeoutMs: run.timeoutMs, signal: run.signal });
  } catch (error) {
    if (error instanceof ToolAbortedError) throw error;
    throw new InternalError(`qpdf ${args[0] ?? ''} failed to run: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The file's page count, or undefined when qpdf cannot read it. */
export async function qpdfPageCount(path: string, run: QpdfRun): Promise<number | undefined> {
  const result = await runQpdf(['--show-npages', path], run);
  const text = result.stdout.trim();
  if (!qpdfSucceeded(result) || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/**
 * Checks a file qpdf just wrote. qpdf once exited 0 after writing a truncated file on a full disk
 * (issue #2), so an exit code alone proves nothing: the output must open and have the pages expected.
 */
export async function verifyQpdfOutput(path: string, expectedPages: number, run: QpdfRun): Promise<void> {
  const pageCount = await qpdfPageCount(path, run);
  if (pageCount !== expectedPages) {
    throw new InternalError(
      `qpdf output ${path} has ${pageCount ?? 'unreadable'} pages, expected ${expectedPages}`,
    );
  }
}
