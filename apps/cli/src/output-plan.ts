// Checks done once per command before any request: what -o means, whether outputs would collide,
// and whether stdout is free for the output (`-o -`, "Nothing but results on stdout").
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import { type OutputTarget, outputTarget, STDIO, sharedPaths } from './output-naming.js';

export interface OutputFlags {
  output?: string;
  force?: boolean;
  /** --skip-existing: inputs whose output exists are not sent. */
  skipExisting?: boolean;
  /** False for --no-download. */
  download: boolean;
}

/** Resolves `-o` for `outputCount` outputs and claims stdout when it is the target. */
export async function planTarget(
  ctx: CommandContext,
  flags: OutputFlags,
  outputCount: number,
): Promise<OutputTarget> {
  if (!flags.download && flags.output !== undefined) {
    throw new UsageError('--no-download prints signed URLs and writes no file; drop -o');
  }
  const kind = await pathKind(flags.output);
  const target = outputTarget(flags.output, { outputCount, isDirectory: kind === 'directory' });
  // Found now rather than when the first output is written, after the upload spent a call.
  if (target.kind === 'dir' && kind === 'other') {
    throw new UsageError(`-o ${target.dir} must be a folder for these outputs, but it is a file`);
  }
  if (target.kind === 'stdout') claimStdout(ctx, flags.force === true);
  return target;
}

/**
 * `-o -` and --json would both write stdout. A PDF is not written to a terminal unless forced, as curl
 * refuses binary output there: it garbles the screen and may send it control sequences.
 */
export function claimStdout(ctx: CommandContext, force: boolean): void {
  if (ctx.globals.json) throw new UsageError('--json and -o - both write to stdout; use one of them');
  if (ctx.io.stdout.isTTY === true && !force) {
    throw new UsageError(
      '-o - would write a binary PDF to the terminal; redirect it (-o - > out.pdf), pipe it, or pass --force to write it there anyway',
    );
  }
  ctx.reporter.useStdoutForData();
}

export function assertDistinct(paths: readonly string[]): void {
  const shared = sharedPaths(paths);
  if (shared.length > 0) {
    throw new UsageError(
      `several inputs would write the same output: ${shared.join(', ')}; use -o DIR per group`,
    );
  }
}

/** What `-o` names now: a directory, something else (a file), or nothing yet. */
async function pathKind(path: string | undefined): Promise<'directory' | 'other' | 'absent'> {
  if (path === undefined || path === STDIO) return 'absent';
  try {
    return (await stat(path)).isDirectory() ? 'directory' : 'other';
  } catch {
    return 'absent';
  }
}

/**
 * The folder of a run's outputs, where its run-state file is kept (run-state.ts): `-o DIR`, the
 * folder of `-o FILE`, else the current folder (outputs beside their inputs, stdout, URLs).
 */
export function outputFolder(target: OutputTarget): string {
  if (target.kind === 'dir') return target.dir;
  if (target.kind === 'file') return dirname(target.path);
  return '.';
}
