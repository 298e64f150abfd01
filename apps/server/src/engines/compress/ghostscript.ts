// One Ghostscript run, judged by its exit code, its messages (ghostscript-messages.ts) and the files it was
// meant to write. Ghostscript 10.0 exits 0 with a blank one-page PDF for inputs it cannot read so a run that
// "succeeded" can still be a failure; callers decide what to try next.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import { runTool, ToolAbortedError, type ToolResult, ToolTimeoutError } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { CompressionLevel, WorkContext } from '../types.js';
import { readGhostscriptMessages } from './ghostscript-messages.js';
import type { GhostscriptSpares } from './ghostscript-spares.js';
import { ghostscriptArgs, type PdfInterpreter, pdfwriteArgs } from './presets.js';

export interface GhostscriptRun {
  gs: ToolInfo;
  args: readonly string[];
  timeoutMs: number;
}

/** A run that finished: `failure` says why its output must not be used, `notes` what else it said. */
export interface GhostscriptOutcome {
  failure: string | undefined;
  notes: string;
}

/**
 * Runs Ghostscript in the job's folder. A client abort stays a ToolAbortedError; a binary that cannot
 * start is an InternalError (the server's problem, not the file's). A non-zero exit, a message
 * admitting a loss and a run out of time are each a `failure`: that run's output is not to be used.
 */
export function runGhostscript(run: GhostscriptRun, job: WorkContext): Promise<GhostscriptOutcome> {
  return judged(
    runTool(run.gs.path, run.args, { cwd: job.workDir, timeoutMs: run.timeoutMs, signal: job.signal }),
    run.timeoutMs,
  );
}

/** What a Ghostscript run's end says of its output (see runGhostscript). */
async function judged(running: Promise<ToolResult>, timeoutMs: number): Promise<GhostscriptOutcome> {
  let result: ToolResult;
  try {
    result = await running;
  } catch (error) {
    if (error instanceof ToolAbortedError) throw error;
    if (error instanceof ToolTimeoutError)
      return { failure: `did not finish within ${timeoutMs / 1000} s`, notes: '' };
    throw new InternalError(`Ghostscript failed to run: ${(error as Error).message}`, { cause: error });
  }
  const verdict = readGhostscriptMessages(`${result.stdout}\n${result.stderr}`);
  if (result.exitCode !== 0) {
    const said = verdict.notes.split('\n').at(-1) ?? '';
    return { failure: `exited with ${result.exitCode}${said ? `: ${said}` : ''}`, notes: verdict.notes };
  }
  return verdict;
}

export interface RewriteRun {
  level: CompressionLevel;
  interpreter: PdfInterpreter;
  inputPath: string;
  /** Pages found by walking the input's page tree (pdf-inspect.ts): Ghostscript writes those. */
  pageCount: number;
  /** File name inside the job's folder. */
  outputName: string;
  timeoutMs: number;
}

export type Rewrite = { path: string; notes: string } | { failure: string; notes: string };

/** Rewrites the input with pdfwrite at the level's preset, in a Ghostscript started ahead (ghostscript-spares.ts). */
export async function rewriteWithGhostscript(
  run: RewriteRun,
  spares: GhostscriptSpares,
  job: WorkContext,
): Promise<Rewrite> {
  const inputPath = resolve(run.inputPath);
  const path = resolve(job.workDir, run.outputName);
  const rewrite = {
    args: pdfwriteArgs(run.level, run.interpreter),
    inputPath,
    pageCount: run.pageCount,
    outputPath: path,
    asked: ghostscriptArgs(run.level, inputPath, run.outputName, run.interpreter, run.pageCount),
  };
  const { failure, notes } = await judged(
    spares.rewrite(rewrite, { timeoutMs: run.timeoutMs, signal: job.signal }),
    run.timeoutMs,
  );
  if (failure !== undefined) return { failure, notes };
  if (!existsSync(path)) return { failure: 'exited with 0 but wrote no output', notes };
  return { path, notes };
}
