// `pdn split <file> --ranges 1-3,5,7-9 [-o DIR]`: one request, one output per range,
// named after the range the server reports (`book.pages-1-3.pdf`). The server parses and validates
// the ranges (openapi.yaml, split `ranges`); the CLI passes them through untouched.
import type { SplitResult } from '@pdn/sdk';
import type { Command } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { deliver } from '../deliver.js';
import { UsageError } from '../errors.js';
import { describeInput, describeOutput, formatBytes, pages } from '../format.js';
import { examples } from '../help.js';
import { checkInputs, UploadSource } from '../inputs.js';
import { asyncOption, resumeOption } from '../options.js';
import { outputPath, STDIO, splitPartName } from '../output-naming.js';
import { type OutputFlags, outputFolder, planTarget } from '../output-plan.js';
import { assertCanWrite } from '../output-writer.js';
import type { OutputReport } from '../report.js';
import type { HumanView } from '../reporter.js';
import { type JobFlags, runJobs } from '../run-jobs.js';
import { uploadProgress } from '../upload-progress.js';

interface SplitFlags extends OutputFlags, JobFlags {
  ranges: string;
}

export function registerSplit(program: Command, io: Io): void {
  program
    .command('split')
    .summary('split a PDF by page ranges')
    .description(
      'Split one PDF into one file per page range, named <name>.pages-<range>.pdf, next to the input or in DIR.',
    )
    .argument('<file>', 'PDF file; - reads it from stdin')
    .requiredOption('-r, --ranges <ranges>', 'comma-separated 1-based pages or ranges, e.g. 1-3,5,7-9')
    .option('-o, --output <dir>', 'folder for the parts (created if missing)')
    .option('-f, --force', 'overwrite existing part files')
    .option('--no-download', 'print signed download URLs instead of downloading the parts')
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn split book.pdf --ranges 1-3,4,5-9',
        'pdn split book.pdf -r 1,2-3 -o parts/',
        'pdn split book.pdf -r 1-10 --json',
        'pdn split book.pdf -r 1-100,101-200 --async',
      ),
    )
    .action(async (file: string, flags: SplitFlags, command: Command) => {
      await split(CommandContext.of(command, io), file, flags);
    });
}

async function split(ctx: CommandContext, file: string, flags: SplitFlags): Promise<void> {
  if (flags.output === STDIO)
    throw new UsageError('split writes one file per range; -o takes a folder, not -');
  await checkInputs([file], ctx.io.stdin);
  // Any -o is a folder here, whatever the number of ranges.
  const target = await planTarget(ctx, flags, Number.POSITIVE_INFINITY);
  const client = await ctx.connect();
  const uploads = new UploadSource(ctx.io.stdin);

  await runJobs(ctx, client, {
    command: 'split',
    items: [file],
    input: (input) => input,
    options: { ranges: flags.ranges, output: flags.output, download: flags.download },
    stateFolder: outputFolder(target),
    flags,
    steps: {
      operation: 'split',
      doing: 'splitting',
      params: async (input, progress) => {
        const upload = await uploads.upload(input, 'stdin.pdf');
        progress('uploading');
        return {
          file: upload,
          ranges: flags.ranges,
          onUploadProgress: uploadProgress(progress, 'submitting'),
        };
      },
      deliver: async (input, result, progress) => {
        const paths = result.parts.map((part) =>
          flags.download ? outputPath(target, input, splitPartName(input, part.pages)) : undefined,
        );
        // Names are only known now; check them all before writing any, so a clash writes nothing.
        for (const path of new Set(paths)) await assertCanWrite(path, flags.force === true);
        // A repeated range ("1,1") names the same file with the same pages: write it once.
        const written = new Map<string, OutputReport>();
        const outputs: OutputReport[] = [];
        for (const [index, part] of result.parts.entries()) {
          const path = paths[index];
          const key = path ?? `url:${index}`;
          const output =
            written.get(key) ??
            (await deliver(ctx, client, part.download, path, flags.force === true, progress));
          written.set(key, output);
          outputs.push(output);
        }
        return outputs;
      },
    },
    view: splitView,
  });
}

const splitView: HumanView = {
  succeeded(item, style) {
    const data = item.data as SplitResult;
    return data.parts
      .map(
        (part, index) =>
          `${style.green('✔')} ${describeInput(item.input)} pages ${part.pages} → ${describeOutput(item.outputs[index])}  ${pages(part.page_count)}, ${formatBytes(part.size)}`,
      )
      .join('\n');
  },
};
