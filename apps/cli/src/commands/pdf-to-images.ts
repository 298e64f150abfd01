// `pdn pdf-to-images <file>` (openapi.yaml `pdfToImages`): one PDF's pages drawn as PNG or JPEG images,
// saved under the server's names (`<name>.page-<n>.png`) beside the PDF or in DIR, or with --zip as one
// archive, `<name>.pages.zip`. The SDK refuses values outside the contract before sending (exit 2).
import { dirname, join } from 'node:path';
import type { PdfToImagesResult } from '@pdn/sdk';
import { type Command, Option } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { deliver } from '../deliver.js';
import { UsageError } from '../errors.js';
import { describeInput, describeOutput, pages } from '../format.js';
import { examples } from '../help.js';
import { checkInputs, UploadSource } from '../inputs.js';
import { asyncOption, resumeOption } from '../options.js';
import { STDIO } from '../output-naming.js';
import type { OutputFlags } from '../output-plan.js';
import type { HumanView } from '../reporter.js';
import { type JobFlags, runJobs } from '../run-jobs.js';
import { uploadProgress } from '../upload-progress.js';

interface PdfToImagesFlags extends OutputFlags, JobFlags {
  pages?: string;
  format?: 'png' | 'jpeg';
  quality?: string;
  dpi?: string;
  width?: string;
  zip?: boolean;
}

export function registerPdfToImages(program: Command, io: Io): void {
  program
    .command('pdf-to-images')
    .summary("draw a PDF's pages as PNG or JPEG images")
    .description(
      "Draw a PDF's pages as images: <name>.page-<n>.png (or .jpg) beside the PDF, or in DIR with -o; with " +
        '--zip one archive, <name>.pages.zip.',
    )
    .argument('<file>', 'the PDF; - reads it from stdin')
    .option('--pages <ranges>', 'only these pages, e.g. 1-3,7 (all when omitted)')
    .addOption(
      new Option('--format <format>', 'png (lossless; the default) or jpeg').choices(['png', 'jpeg']),
    )
    .option('--quality <n>', 'JPEG quality, 1-100 (server default 85)')
    .addOption(new Option('--dpi <n>', 'pixels per inch, 10-1200 (server default 150)').conflicts('width'))
    .option('--width <pixels>', 'each image this wide, its height in proportion (a thumbnail)')
    .option('--zip', 'one ZIP archive of the images instead of a file per page')
    .option('-o, --output <dir>', 'the folder to write the images in (default: the PDF’s own)')
    .option('-f, --force', 'overwrite existing files')
    .option('--no-download', 'print the signed download URLs instead of downloading the images')
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn pdf-to-images report.pdf',
        'pdn pdf-to-images report.pdf --pages 1 --width 300 --format jpeg -o thumbs/',
        'pdn pdf-to-images slides.pdf --dpi 300 --zip',
      ),
    )
    .action(async (file: string, flags: PdfToImagesFlags, command: Command) => {
      await pdfToImages(CommandContext.of(command, io), file, flags);
    });
}

/** A whole-number option as a number; the SDK judges its range. */
function wholeOf(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`--${name} takes a whole number; got "${raw}"`);
  return value;
}

async function pdfToImages(ctx: CommandContext, file: string, flags: PdfToImagesFlags): Promise<void> {
  if (flags.output === STDIO) throw new UsageError('pdf-to-images writes several files: -o takes a folder');
  if (!flags.download && flags.output !== undefined)
    throw new UsageError('--no-download prints signed URLs and writes no file; drop -o');
  const numbers = {
    quality: wholeOf('quality', flags.quality),
    dpi: wholeOf('dpi', flags.dpi),
    width: wholeOf('width', flags.width),
  };
  await checkInputs([file], ctx.io.stdin);
  const folder = flags.output ?? (file === STDIO ? '.' : dirname(file));
  const client = await ctx.connect();
  const uploads = new UploadSource(ctx.io.stdin);

  await runJobs(ctx, client, {
    command: 'pdf-to-images',
    items: [file],
    input: (input) => input,
    options: { ...numbers, pages: flags.pages, format: flags.format, zip: flags.zip, output: flags.output },
    stateFolder: folder,
    flags,
    steps: {
      operation: 'pdf_to_images',
      doing: 'drawing',
      params: async (input, progress) => {
        const upload = await uploads.upload(input, 'stdin.pdf');
        progress('uploading');
        return {
          file: upload,
          pages: flags.pages,
          format: flags.format,
          ...numbers,
          output: flags.zip === true ? 'zip' : 'files',
          onUploadProgress: uploadProgress(progress, 'submitting'),
        };
      },
      deliver: async (_input, result, progress) => {
        const force = flags.force === true;
        const pathOf = (name: string) => (flags.download ? join(folder, name) : undefined);
        if (result.download !== undefined && result.filename !== undefined)
          return [await deliver(ctx, client, result.download, pathOf(result.filename), force, progress)];
        const outputs = [];
        for (const page of result.pages) {
          if (page.download === undefined)
            throw new Error(`the server sent no download of page ${page.page}`);
          outputs.push(await deliver(ctx, client, page.download, pathOf(page.filename), force, progress));
        }
        return outputs;
      },
    },
    view: pdfToImagesView,
  });
}

const pdfToImagesView: HumanView = {
  resumable: true,
  succeeded(item, style) {
    const data = item.data as PdfToImagesResult;
    const shown =
      item.outputs.length === 1 ? describeOutput(item.outputs[0]) : `${item.outputs.length} images`;
    return `${style.green('✔')} ${describeInput(item.input)} → ${shown}  ${pages(data.page_count)} as ${data.format.toUpperCase()}`;
  },
};
