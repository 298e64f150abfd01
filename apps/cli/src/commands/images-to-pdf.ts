// `pdn images-to-pdf <images...> -o out.pdf` (openapi.yaml `imagesToPdf`): one request making one PDF
// of the images, a page each in the order given. The SDK refuses no image or more than 500, and any
// option outside the contract's values, before sending (bin.ts exits 2 for that).
import type { ImagesToPdfResult } from '@pdn/sdk';
import { type Command, Option } from 'commander';
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

interface ImagesToPdfFlags extends OutputFlags, JobFlags {
  pageSize?: 'image' | 'a3' | 'a4' | 'a5' | 'letter' | 'legal';
  orientation?: 'auto' | 'portrait' | 'landscape';
  fit?: 'contain' | 'cover';
  margin?: string;
}

export function registerImagesToPdf(program: Command, io: Io): void {
  program
    .command('images-to-pdf')
    .summary('make one PDF of images, a page each')
    .description(
      'Make one PDF of PNG, JPEG, TIFF (every page), WebP, BMP or JPEG 2000 images, a page each in the order ' +
        'given. JPEG and JPEG 2000 are kept byte for byte, the others losslessly; each page is the image at its ' +
        'resolution, or the paper chosen with --page-size.',
    )
    .argument('<images...>', 'image files in page order; - reads one from stdin')
    .addOption(
      new Option('--page-size <size>', 'image (each page the image’s size; the default) or a paper').choices([
        'image',
        'a3',
        'a4',
        'a5',
        'letter',
        'legal',
      ]),
    )
    .addOption(
      new Option(
        '--orientation <how>',
        'with a paper: auto (as the image is; default), portrait or landscape',
      ).choices(['auto', 'portrait', 'landscape']),
    )
    .addOption(
      new Option(
        '--fit <how>',
        'with a paper: contain (whole image; default) or cover (fill the page)',
      ).choices(['contain', 'cover']),
    )
    .option('--margin <mm>', 'white space around each image, 0 to 50 millimetres (default 0)')
    .option('-o, --output <file>', 'the PDF (required unless --no-download); - for stdout')
    .option('-f, --force', 'overwrite the output file if it exists')
    .addOption(skipExistingOption().conflicts('download'))
    .option('--no-download', 'print the signed download URL instead of downloading the result')
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn images-to-pdf page-*.jpg -o scans.pdf',
        'pdn images-to-pdf photo.jpg chart.png --page-size a4 --margin 10 -o report.pdf',
        'pdn images-to-pdf fax.tiff --page-size letter --fit cover -o - | lpr',
        'pdn images-to-pdf album/*.jpg --async --json',
      ),
    )
    .action(async (images: string[], flags: ImagesToPdfFlags, command: Command) => {
      await imagesToPdf(CommandContext.of(command, io), images, flags);
    });
}

/** `--margin`: a number of millimetres; the SDK judges its range. */
function marginOf(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value))
    throw new UsageError(`--margin takes millimetres, e.g. 10; got "${raw}"`);
  return value;
}

async function imagesToPdf(ctx: CommandContext, images: string[], flags: ImagesToPdfFlags): Promise<void> {
  const marginMm = marginOf(flags.margin);
  await checkInputs(images, ctx.io.stdin);
  const path = flags.async ? undefined : outputFile(flags);
  if (path === STDIO) claimStdout(ctx, flags.force === true);
  const client = await ctx.connect();
  const uploads = new UploadSource(ctx.io.stdin);

  await runJobs(ctx, client, {
    command: 'images-to-pdf',
    items: [images],
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
      operation: 'images_to_pdf',
      doing: 'converting',
      prepare: () => assertCanWrite(path, flags.force === true),
      params: async (inputs, progress) => {
        const files = await Promise.all(inputs.map((input) => uploads.upload(input, 'stdin-image')));
        progress('uploading');
        return {
          images: files,
          pageSize: flags.pageSize,
          orientation: flags.orientation,
          fit: flags.fit,
          marginMm,
          onUploadProgress: uploadProgress(progress, 'submitting'),
        };
      },
      deliver: async (_inputs, result, progress) => {
        return [await deliver(ctx, client, result.download, path, flags.force === true, progress)];
      },
    },
    view: imagesToPdfView,
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
    throw new UsageError('images-to-pdf needs -o FILE (or -o - for stdout, or --no-download)');
  return flags.output;
}

const imagesToPdfView: HumanView = {
  resumable: true,
  succeeded(item, style) {
    const data = item.data as ImagesToPdfResult;
    return `${style.green('✔')} ${describeInput(item.input)} → ${describeOutput(item.outputs[0])}  ${pages(data.page_count)}, ${formatBytes(data.size)}`;
  },
};
