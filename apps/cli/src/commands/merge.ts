// `pdn merge <files...> -o out.pdf` (issue #5): one request joining 2-20 PDFs in the order given.
// The SDK refuses fewer than 2 or more than 20 files before sending (bin.ts exits 2 for that).
import type { MergeResult } from '@pdn/sdk';
import type { Command } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { deliver } from '../deliver.js';
import { UsageError } from '../errors.js';
import { describeInput, describeOutput, formatBytes, pages } from '../format.js';
import { examples } from '../help.js';
import { checkInputs, UploadSource } from '../inputs.js';
import { asyncOption, resumeOption, skipExistingOption } from '../options.js';
import { STDIO } from '../output-naming.js';
import { claimStdout, type OutputFlags, outputFolder } from '../output-plan.js';
import { assertCanWrite, existingOutput } from '../output-writer.js';
import type { HumanView } from '../reporter.js';
import { type JobFlags, runJobs } from '../run-jobs.js';
import { uploadProgress } from '../upload-progress.js';

export function registerMerge(program: Command, io: Io): void {
  program
    .command('merge')
    .summary('merge 2-20 PDFs into one')
    .description('Merge 2 to 20 PDFs into one document, pages in the order the files are given.')
    .argument('<files...>', 'PDF files in page order; - reads one from stdin')
    .option('-o, --output <file>', 'the merged PDF (required unless --no-download); - for stdout')
    .option('-f, --force', 'overwrite the output file if it exists')
    .addOption(skipExistingOption().conflicts('download'))
    .option('--no-download', 'print the signed download URL instead of downloading the result')
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn merge cover.pdf body.pdf appendix.pdf -o book.pdf',
        'pdn merge a.pdf b.pdf -o - | lpr',
        'pdn merge a.pdf b.pdf --no-download --json',
        'pdn merge part-*.pdf --async --json',
      ),
    )
    .action(async (files: string[], flags: MergeFlags, command: Command) => {
      await merge(CommandContext.of(command, io), files, flags);
    });
}

type MergeFlags = OutputFlags & JobFlags;

async function merge(ctx: CommandContext, files: string[], flags: MergeFlags): Promise<void> {
  await checkInputs(files, ctx.io.stdin);
  const path = flags.async ? undefined : outputFile(flags);
  if (path === STDIO) claimStdout(ctx, flags.force === true);
  const client = await ctx.connect();
  const uploads = new UploadSource(ctx.io.stdin);

  await runJobs(ctx, client, {
    command: 'merge',
    items: [files],
    input: (inputs) => inputs,
    skip: async () => {
      const existing = flags.skipExisting ? await existingOutput(path) : undefined;
      return existing && { reason: 'output_exists', outputs: [existing] };
    },
    options: { output: path },
    stateFolder: outputFolder(
      path === undefined || path === STDIO ? { kind: 'stdout' } : { kind: 'file', path },
    ),
    flags,
    steps: {
      operation: 'merge',
      doing: 'merging',
      prepare: () => assertCanWrite(path, flags.force === true),
      params: async (inputs, progress) => {
        const files = await Promise.all(inputs.map((input) => uploads.upload(input, 'stdin.pdf')));
        progress('uploading');
        return { files, onUploadProgress: uploadProgress(progress, 'submitting') };
      },
      deliver: async (_inputs, result, progress) => {
        return [await deliver(ctx, client, result.download, path, flags.force === true, progress)];
      },
    },
    view: mergeView,
  });
}

/** `-o` is the file; with --no-download there is none (and `-o` would be misleading). */
function outputFile(flags: OutputFlags): string | undefined {
  if (!flags.download) {
    if (flags.output !== undefined)
      throw new UsageError('--no-download prints a signed URL and writes no file; drop -o');
    return undefined;
  }
  if (flags.output === undefined)
    throw new UsageError('merge needs -o FILE (or -o - for stdout, or --no-download)');
  return flags.output;
}

const mergeView: HumanView = {
  resumable: true,
  succeeded(item, style) {
    const data = item.data as MergeResult;
    return `${style.green('✔')} ${describeInput(item.input)} → ${describeOutput(item.outputs[0])}  ${pages(data.page_count)}, ${formatBytes(data.size)}`;
  },
};
