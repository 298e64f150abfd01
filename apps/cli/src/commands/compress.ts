// `pdn compress <files...>`: one request per file, run as a batch; outputs are
// `<name>.compressed.pdf` next to each input or in DIR; per-file sizes and saving, and a total.
import type { CompressResult } from '@pdn/sdk';
import { type Command, Option } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { deliver } from '../deliver.js';
import { describeInput, describeOutput, formatBytes, formatSaving } from '../format.js';
import { examples } from '../help.js';
import { checkInputs, UploadSource } from '../inputs.js';
import { asyncOption, resumeOption, skipExistingOption } from '../options.js';
import { compressedName, isOwnOutputName, outputPath } from '../output-naming.js';
import { assertDistinct, type OutputFlags, outputFolder, planTarget } from '../output-plan.js';
import { assertCanWrite, existingOutput } from '../output-writer.js';
import type { HumanView } from '../reporter.js';
import { type JobFlags, runJobs } from '../run-jobs.js';
import { uploadProgress } from '../upload-progress.js';

interface CompressFlags extends OutputFlags, JobFlags {
  level?: 'low' | 'medium' | 'high';
  includeOutputs?: boolean;
}

export function registerCompress(program: Command, io: Io): void {
  program
    .command('compress')
    .summary('compress PDFs')
    .description(
      'Compress one or more PDFs. Each output is <name>.compressed.pdf next to its input, or in DIR with -o.',
    )
    .argument('<files...>', 'PDF files; - reads one from stdin')
    .addOption(
      new Option('-l, --level <level>', 'compression preset (server default: medium)').choices([
        'low',
        'medium',
        'high',
      ]),
    )
    .option('-o, --output <path>', 'output DIR; or FILE for a single input; or - for stdout')
    .option('-f, --force', 'overwrite existing output files')
    .addOption(skipExistingOption().conflicts('download'))
    .option(
      '--include-outputs',
      "also compress inputs named like pdn's outputs (*.compressed.pdf, *.pages-N.pdf) given with others",
    )
    .option('--no-download', 'print signed download URLs instead of downloading the outputs')
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn compress report.pdf',
        'pdn compress scans/*.pdf --level high -o small/',
        'pdn compress *.pdf --skip-existing',
        'pdn compress *.pdf -o small/ --resume',
        'pdn compress big.pdf --async --json',
        'cat big.pdf | pdn compress - -o - > small.pdf',
        'pdn compress *.pdf --json > results.json',
      ),
    )
    .action(async (files: string[], flags: CompressFlags, command: Command) => {
      await compress(CommandContext.of(command, io), files, flags);
    });
}

async function compress(ctx: CommandContext, files: string[], flags: CompressFlags): Promise<void> {
  await checkInputs(files, ctx.io.stdin);
  const target = await planTarget(ctx, flags, files.length);
  const paths = new Map(files.map((file) => [file, outputPath(target, file, compressedName(file))]));
  if (flags.download) assertDistinct([...paths.values()]);
  const client = await ctx.connect();
  const uploads = new UploadSource(ctx.io.stdin);
  // Shells expand `*.pdf` before pdn sees it, so last run's outputs arrive as inputs.
  // One input was named on purpose; among several, pdn's own output names are left out.
  const leaveOutOwn = files.length > 1 && flags.includeOutputs !== true;

  await runJobs(ctx, client, {
    command: 'compress',
    items: files,
    input: (file) => file,
    skip: async (file) => {
      if (leaveOutOwn && isOwnOutputName(file)) return { reason: 'pdn_output' };
      const existing = flags.skipExisting ? await existingOutput(paths.get(file)) : undefined;
      return existing && { reason: 'output_exists', outputs: [existing] };
    },
    options: { level: flags.level, output: flags.output, download: flags.download },
    stateFolder: outputFolder(target),
    flags,
    steps: {
      operation: 'compress',
      doing: 'compressing',
      prepare: (file) => assertCanWrite(flags.download ? paths.get(file) : undefined, flags.force === true),
      params: async (file, progress) => {
        const upload = await uploads.upload(file, 'stdin.pdf');
        progress('uploading');
        return {
          file: upload,
          ...(flags.level !== undefined ? { level: flags.level } : {}),
          onUploadProgress: uploadProgress(progress, 'submitting'),
        };
      },
      deliver: async (file, result, progress) => {
        const path = flags.download ? paths.get(file) : undefined;
        return [await deliver(ctx, client, result.download, path, flags.force === true, progress)];
      },
    },
    view: compressView,
  });
}

const compressView: HumanView = {
  resumable: true,
  succeeded(item, style) {
    const data = item.data as CompressResult;
    const sizes = `${formatBytes(data.original_size)} → ${formatBytes(data.compressed_size)}`;
    const saving = formatSaving(data.original_size, data.compressed_size);
    return `${style.green('✔')} ${describeInput(item.input)} → ${describeOutput(item.outputs[0])}  ${sizes}  ${style.bold(saving)} ${style.dim(`(${data.method})`)}`;
  },
  total(report, style) {
    const done = report.results
      .filter((item) => item.status === 'succeeded')
      .map((item) => item.data as CompressResult);
    if (done.length < 2) return undefined;
    const before = done.reduce((sum, data) => sum + data.original_size, 0);
    const after = done.reduce((sum, data) => sum + data.compressed_size, 0);
    return style.bold(
      `total: ${done.length} files  ${formatBytes(before)} → ${formatBytes(after)}  ${formatSaving(before, after)}`,
    );
  },
};
