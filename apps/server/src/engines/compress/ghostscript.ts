// One Ghostscript pdfwrite run at a level's preset. Ghostscript 10.0 exits 0 with a blank one-page PDF
// for inputs it cannot read (issue #3), so its exit code proves little: callers inspect the input
// before and check the output's page count after.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InternalError } from '../../errors.js';
import { runTool, ToolAbortedError } from '../run-tool.js';
import type { ToolInfo } from '../tools.js';
import type { CompressionLevel, JobContext } from '../types.js';
import { type GhostscriptArgsOptions, ghostscriptArgs } from './presets.js';

export interface GhostscriptRun extends GhostscriptArgsOptions {
  gs: ToolInfo;
  level: CompressionLevel;
  inputPath: string;
  /** File name inside the job's folder. */
  outputName: string;
  timeoutMs: number;
}

/**
 * Writes the rewrite and returns its path. A client abort stays a ToolAbortedError; a timeout, a crash
 * or a failing exit is an InternalError, because the input already passed inspection.
 */
export async function runGhostscript(run: GhostscriptRun, job: JobContext): Promise<string> {
  const args = ghostscriptArgs(run.level, resolve(run.inputPath), run.outputName, run);
  let exitCode: number;
  let stderr: string;
  try {
    const options = { cwd: job.workDir, timeoutMs: run.timeoutMs, signal: job.signal };
    ({ exitCode, stderr } = await runTool(run.gs.path, args, options));
  } catch (error) {
    if (error instanceof ToolAbortedError) throw error;
    throw new InternalError(`Ghostscript failed to run: ${(error as Error).message}`, { cause: error });
  }
  if (exitCode !== 0) throw new InternalError(`Ghostscript exited with ${exitCode}: ${stderr.trim()}`);
  const outputPath = resolve(job.workDir, run.outputName);
  if (!existsSync(outputPath))
    throw new InternalError(`Ghostscript exited with 0 but wrote no output: ${stderr.trim()}`);
  return outputPath;
}
