// `pdn ocr-pdf <files...>` (openapi.yaml `ocrPdf`): scanned PDFs and images made searchable
// PDFs, `<name>.ocr.pdf` next to each input or in DIR, and with --text their text, `<name>.ocr.txt`
// beside each PDF. A command of its own rather than `pdn ocr --pdf`: `pdn ocr` prints the text of
// images, this one writes files, with options (mode, deskew, pages, PDF/A) `ocr` has no use for.
import type { OcrPdfResult } from '@pdn/sdk';
import { type Command, Option } from 'commander';
import { checkLanguage } from '../check-language.js';
import { CommandContext, type Io } from '../context.js';
import { deliver } from '../deliver.js';
import { UsageError } from '../errors.js';
import { describeInput, describeOutput, formatBytes, pages } from '../format.js';
import { examples } from '../help.js';
import { checkInputs, UploadSource } from '../inputs.js';
import { asyncOption, resumeOption, skipExistingOption } from '../options.js';
import { isSearchableName, outputPath, STDIO, searchableName, textBeside } from '../output-naming.js';
import { assertDistinct, type OutputFlags, outputFolder, planTarget } from '../output-plan.js';
import { assertCanWrite, existingOutput } from '../output-writer.js';
import type { HumanView } from '../reporter.js';
import { type JobFlags, runJobs } from '../run-jobs.js';
import { uploadProgress } from '../upload-progress.js';

interface OcrPdfFlags extends OutputFlags, JobFlags {
  language?: string;
  mode?: 'skip' | 'redo' | 'force';
  deskew?: boolean;
  rotate?: boolean;
  pages?: string;
  outputType?: 'pdf' | 'pdfa';
  text?: boolean;
  includeOutputs?: boolean;
}

export function registerOcrPdf(program: Command, io: Io): void {
  program
    .command('ocr-pdf')
    .summary('make scanned PDFs and images searchable PDFs')
    .description(
      'Make scanned PDFs (or PNG, JPEG, TIFF, WebP, BMP images) searchable: the page images are kept and an ' +
        'invisible text layer is laid over them. Each output is <name>.ocr.pdf next to its input, or in DIR with ' +
        '-o; --text also writes the text, <name>.ocr.txt, beside it.',
    )
    .argument('<files...>', 'PDF or image files; - reads one from stdin')
    .option(
      '-l, --language <code>',
      'OCR language, e.g. deu, or several joined by + (see `pdn languages`); server default eng',
    )
    .addOption(
      new Option(
        '--mode <mode>',
        'pages that already have text: skip them, redo an earlier OCR layer, or force OCR of every page (server default: skip)',
      ).choices(['skip', 'redo', 'force']),
    )
    .option('--deskew', 'straighten pages scanned at an angle (re-encodes those pages)')
    .option('--rotate', 'turn pages upright, whatever way they were scanned')
    .option('--pages <ranges>', 'only read these pages, e.g. 1-3,7 (the others are kept as they are)')
    .addOption(
      new Option('--output-type <type>', 'pdf, or pdfa for PDF/A-2b (server default: pdf)').choices([
        'pdf',
        'pdfa',
      ]),
    )
    .option('--text', 'also write the recognised text, <name>.ocr.txt, beside each PDF')
    .option('-o, --output <path>', 'output DIR; or FILE for a single input; or - for stdout')
    .option('-f, --force', 'overwrite existing output files')
    .addOption(skipExistingOption().conflicts('download'))
    .option('--include-outputs', 'also read inputs named like its outputs (*.ocr.pdf) given with others')
    .option('--no-download', 'print signed download URLs instead of downloading the outputs')
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn ocr-pdf scan.pdf',
        'pdn ocr-pdf scans/*.pdf --language deu --text -o searchable/',
        'pdn ocr-pdf fax.tiff --rotate --output-type pdfa',
        'pdn ocr-pdf book.pdf --pages 1-20 --mode force',
        'pdn ocr-pdf scans/*.pdf -o searchable/ --resume',
        'pdn ocr-pdf big.pdf --async --json',
      ),
    )
    .action(async (files: string[], flags: OcrPdfFlags, command: Command) => {
      await ocrPdf(CommandContext.of(command, io), files, flags);
    });
}

async function ocrPdf(ctx: CommandContext, files: string[], flags: OcrPdfFlags): Promise<void> {
  if (flags.text === true && flags.output === STDIO) {
    throw new UsageError('--text writes a file beside the PDF; with -o - there is no folder for it');
  }
  await checkInputs(files, ctx.io.stdin);
  const target = await planTarget(ctx, flags, files.length);
  const pdfPath = (file: string) => outputPath(target, file, searchableName(file));
  /** Where each output goes: the PDF's path and, with --text, the text's; none with --no-download. */
  const paths = (file: string): string[] =>
    !flags.download ? [] : flags.text === true ? [pdfPath(file), textBeside(pdfPath(file))] : [pdfPath(file)];
  if (flags.download) assertDistinct(files.flatMap(paths));
  const client = await ctx.connect();
  if (flags.language !== undefined) await checkLanguage(ctx, client, flags.language);
  const uploads = new UploadSource(ctx.io.stdin);
  // As for compress: among several inputs, last run's outputs are left out.
  const leaveOutOwn = files.length > 1 && flags.includeOutputs !== true;

  await runJobs(ctx, client, {
    command: 'ocr-pdf',
    items: files,
    input: (file) => file,
    skip: async (file) => {
      if (leaveOutOwn && isSearchableName(file)) return { reason: 'pdn_output' };
      if (!flags.skipExisting) return undefined;
      const found = await Promise.all(paths(file).map(existingOutput));
      // Skipped only when every output it would write is there: a missing text file is worth the call.
      const existing = found.filter((output) => output !== undefined);
      return existing.length === found.length ? { reason: 'output_exists', outputs: existing } : undefined;
    },
    options: {
      language: flags.language,
      mode: flags.mode,
      deskew: flags.deskew,
      rotate: flags.rotate,
      pages: flags.pages,
      outputType: flags.outputType,
      text: flags.text,
      output: flags.output,
      download: flags.download,
    },
    stateFolder: outputFolder(target),
    flags,
    steps: {
      operation: 'ocr_pdf',
      doing: 'reading',
      unit: 'pages',
      prepare: async (file) => {
        for (const path of paths(file)) await assertCanWrite(path, flags.force === true);
      },
      params: async (file, progress) => {
        const upload = await uploads.upload(file, 'stdin');
        progress('uploading');
        return {
          file: upload,
          ...(flags.language === undefined ? {} : { language: flags.language }),
          ...(flags.mode === undefined ? {} : { mode: flags.mode }),
          ...(flags.deskew === undefined ? {} : { deskew: flags.deskew }),
          ...(flags.rotate === undefined ? {} : { rotate: flags.rotate }),
          ...(flags.pages === undefined ? {} : { pages: flags.pages }),
          ...(flags.outputType === undefined ? {} : { output: flags.outputType }),
          onUploadProgress: uploadProgress(progress, 'submitting'),
        };
      },
      deliver: async (file, result, progress) => {
        const force = flags.force === true;
        const [pdf, text] = flags.download ? paths(file) : [];
        const outputs = [await deliver(ctx, client, result.download, pdf, force, progress)];
        if (flags.text === true) {
          outputs.push(await deliver(ctx, client, result.text_download, text, force, progress));
        }
        return outputs;
      },
    },
    view: ocrPdfView,
  });
}

/** `✔ scan.pdf → scan.ocr.pdf  3 pages (2 read, 1 skipped), 412.0 KiB, 94% confidence (ocrmypdf)`. */
const ocrPdfView: HumanView = {
  resumable: true,
  succeeded(item, style) {
    const data = item.data as OcrPdfResult;
    const read = data.pages.flatMap((page) => (page.confidence === null ? [] : [page.confidence]));
    const confidence =
      read.length === 0
        ? ''
        : `, ${Math.round(read.reduce((sum, c) => sum + c, 0) / read.length)}% confidence`;
    const counts = `${pages(data.page_count)} (${data.pages_ocred} read, ${data.pages_skipped} skipped)`;
    const text = item.outputs[1] === undefined ? '' : ` + ${describeOutput(item.outputs[1])}`;
    return `${style.green('✔')} ${describeInput(item.input)} → ${describeOutput(item.outputs[0])}${text}  ${counts}, ${formatBytes(data.size)}${confidence} ${style.dim(`(${data.method})`)}`;
  },
};
