// qpdf through runTool, with qpdf's exit codes read in one place. From qpdf's manual ("Exit Status"):
// 0 = success, 2 = errors, 3 = warnings only (the output is still written and usable; it is
// verified anyway).
import { resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import { runTool, ToolAbortedError, type ToolResult, ToolTimeoutError } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import { walkPageTreeOf } from './page-walk/page-tree-walk.js';

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

/** Whether `error` is runQpdf's for a qpdf that ran out of time: for a caller that can do without it. */
export function qpdfTimedOut(error: unknown): boolean {
  return error instanceof InternalError && error.cause instanceof ToolTimeoutError;
}

/** What walking a file's page tree found: the pages really there, or why they cannot be counted. */
export type PageWalk = { pageCount: number } | { failure: 'loop' | 'crash' | 'unreadable' };

// qpdf's JSON (format 2) lists pages in order with sorted keys, "pageposfrom1" last, and runTool keeps
// the tail of long output: the end of the text says how many pages there are.
const LAST_PAGE = /"pageposfrom1":\s*(\d+)\s*\}\s*\]\s*\}\s*$/;
const NO_PAGES = /"pages":\s*\[\s*\]\s*\}\s*$/;
/** qpdf 11's words when a /Kids entry leads back up the tree (QPDF::getAllPages). */
const LOOP = /loop detected in \/Pages structure/i;

/**
 * Counts the pages by walking the page tree: `--show-npages` reports the root's /Count,
 * which a file can set to anything (a 20,000-page file said 1). qpdf's `pages` walk costs about 60 µs a
 * page (measured with qpdf 11.3: 5000 pages in 0.3 s of CPU), against 20 µs for reading /Count.
 */
export async function walkPages(path: string, run: QpdfRun): Promise<PageWalk> {
  const result = await runQpdf(['--json', '--json-key=pages', resolve(path)], run);
  // runTool reports a death by signal as 128 + the signal; qpdf 11.3 segfaults on a page tree nested
  // 100,000 deep.
  if (result.exitCode >= 128) return { failure: 'crash' };
  if (!qpdfSucceeded(result)) return { failure: LOOP.test(result.stderr) ? 'loop' : 'unreadable' };
  const last = LAST_PAGE.exec(result.stdout);
  if (last?.[1] !== undefined) return { pageCount: Number(last[1]) };
  return NO_PAGES.test(result.stdout) ? { pageCount: 0 } : { failure: 'unreadable' };
}

/**
 * The pages a merge of `paths` would have, counted by qpdf reading them all in one run and writing
 * nothing: `--empty --pages` walks each page tree and copies the pages it finds, exactly as the merge
 * will, and `--show-npages` then reads the /Count qpdf computed for the document it built in memory
 * (unlike an upload's /Count, it cannot lie). One run for many files saves a qpdf start-up per file,
 * most of a short walk's cost (the merge bench: 5 ms of a 10 ms walk, measured with qpdf 11.3).
 * Every file gets the range `1-z`, so a file without pages is an error, not an empty selection.
 * Undefined when qpdf fails on any of them: walking each alone (walkPages) then says which and why.
 */
export async function countPagesTogether(
  paths: readonly string[],
  run: QpdfRun,
): Promise<number | undefined> {
  const pages = paths.flatMap((path) => [resolve(path), '1-z']);
  const result = await runQpdf(['--empty', '--pages', ...pages, '--', '--show-npages'], run);
  const count = result.stdout.trim();
  return qpdfSucceeded(result) && /^\d+$/.test(count) ? Number(count) : undefined;
}

/**
 * Checks a file qpdf or Ghostscript just wrote. qpdf once exited 0 after writing a truncated file on a
 * full disk, so an exit code alone proves nothing: qpdf must open the output without
 * repairing it (exit 0: a file cut short has lost the cross-reference table written last) and its root
 * /Count must be the pages expected. Unlike an upload's, an output's /Count is worth reading: qpdf and
 * Ghostscript compute it from the pages they write, except qpdf's lossless pass, which keeps the input's
 * page tree as it is, lying /Count included (a walk would miss that; poppler then refuses the file).
 * Reading it costs 0.01 s of CPU on a 1000-page merge, a walk 0.12 s: 70% of the merge itself (the
 * merge bench holds merge to 1.5x the bare qpdf CLI).
 */
export async function verifyQpdfOutput(path: string, expectedPages: number, run: QpdfRun): Promise<void> {
  // The same proof without a qpdf run (as the merge bench measured): a walk in this process that reads the
  // cross-reference strictly (a file cut short has none) and finds the expected pages, with a /Count
  // saying so. Anything else, qpdf judges.
  const walk = await walkPageTreeOf(path, expectedPages);
  if (walk?.pageCount === expectedPages && walk.rootCount === expectedPages) return;
  const result = await runQpdf(['--show-npages', resolve(path)], run);
  if (result.exitCode !== 0) {
    throw new InternalError(
      `qpdf output ${path} does not open without repair: exit ${result.exitCode}, ${result.stderr.trim()}`,
    );
  }
  const pageCount = result.stdout.trim();
  if (pageCount !== String(expectedPages)) {
    throw new InternalError(`qpdf output ${path} has ${pageCount} pages, expected ${expectedPages}`);
  }
}
