// The commands that make one file of all their inputs (`pdn merge`, `pdn images-to-pdf`, `pdn html-to-pdf`): one job
// whose uploads are every input in the order given, its one result written to `-o` (a file, or `-`
// for stdout), or reported as a signed URL with --no-download.
import type { OperationParams, OperationResults, Uploadable, UploadProgress } from '@pdn/sdk';
import type { Command } from 'commander';
import type { CommandContext } from './context.js';
import { deliver } from './deliver.js';
import { UsageError } from './errors.js';
import { describeInput, describeOutput, formatBytes, pages } from './format.js';
import { checkInputs, UploadSource } from './inputs.js';
import { asyncOption, resumeOption, skipExistingOption } from './options.js';
import { STDIO } from './output-naming.js';
import { claimStdout, type OutputFlags, outputFolder } from './output-plan.js';
import { assertCanWrite, existingOutput } from './output-writer.js';
import type { HumanView } from './reporter.js';
import { type JobFlags, runJobs } from './run-jobs.js';
import { uploadProgress } from './upload-progress.js';

type OneOutputOperation = 'merge' | 'images_to_pdf' | 'html_to_pdf';

export interface OneOutput<O extends OneOutputOperation> {
  /** As typed after `pdn`. */
  command: string;
  operation: O;
  /** The spinner's word while the server works ("merging"). */
  doing: string;
  /** The file name the server sees for an input read from stdin. */
  stdinName: string;
  /** What besides the inputs changes the output (the run-state file names the run by both). */
  options: Record<string, unknown>;
  /** The SDK parameters of the job, given its uploads and what reports their progress. */
  params(uploads: Uploadable[], onUploadProgress: (sent: UploadProgress) => void): OperationParams[O];
}

/** Adds the options every such command takes: where its one output goes (`output` names it), and jobs. */
export function addOneOutputOptions(command: Command, output: string): Command {
  return command
    .option('-o, --output <file>', `${output} (required unless --no-download); - for stdout`)
    .option('-f, --force', 'overwrite the output file if it exists')
    .addOption(skipExistingOption().conflicts('download'))
    .option('--no-download', 'print the signed download URL instead of downloading the result')
    .addOption(asyncOption())
    .addOption(resumeOption());
}

export async function runOneOutput<O extends OneOutputOperation>(
  ctx: CommandContext,
  inputs: string[],
  flags: OutputFlags & JobFlags,
  spec: OneOutput<O>,
): Promise<void> {
  await checkInputs(inputs, ctx.io.stdin);
  const path = flags.async ? undefined : outputFile(spec.command, flags);
  if (path === STDIO) claimStdout(ctx, flags.force === true);
  const client = await ctx.connect();
  const uploads = new UploadSource(ctx.io.stdin);

  await runJobs(ctx, client, {
    command: spec.command,
    items: [inputs],
    input: (items) => items,
    skip: async () => {
      const existing = flags.skipExisting ? await existingOutput(path) : undefined;
      return existing && { reason: 'output_exists', outputs: [existing] };
    },
    options: { ...spec.options, output: path },
    stateFolder: outputFolder(
      path === undefined || path === STDIO ? { kind: 'stdout' } : { kind: 'file', path },
    ),
    flags,
    steps: {
      operation: spec.operation,
      doing: spec.doing,
      prepare: () => assertCanWrite(path, flags.force === true),
      params: async (items, progress) => {
        const files = await Promise.all(items.map((input) => uploads.upload(input, spec.stdinName)));
        progress('uploading');
        return spec.params(files, uploadProgress(progress, 'submitting'));
      },
      deliver: async (_items, result: OperationResults[O], progress) => [
        await deliver(ctx, client, result.download, path, flags.force === true, progress),
      ],
    },
    view: oneOutputView,
  });
}

/** `-o` is the file; with --no-download there is none (and `-o` would be misleading). */
function outputFile(command: string, flags: OutputFlags): string | undefined {
  if (!flags.download) {
    if (flags.output !== undefined)
      throw new UsageError('--no-download prints a signed URL and writes no file; drop -o');
    return undefined;
  }
  if (flags.output === undefined)
    throw new UsageError(`${command} needs -o FILE (or -o - for stdout, or --no-download)`);
  return flags.output;
}

const oneOutputView: HumanView = {
  resumable: true,
  succeeded(item, style) {
    const data = item.data as { page_count: number; size: number };
    return `${style.green('✔')} ${describeInput(item.input)} → ${describeOutput(item.outputs[0])}  ${pages(data.page_count)}, ${formatBytes(data.size)}`;
  },
};
