// `pdn office-to-pdf <files...>` (openapi.yaml `officeToPdf`): one request per document, run as a batch;
// each output is `<name>.pdf` next to its input or in DIR. The SDK refuses values outside the contract
// before sending (exit 2); a server without LibreOffice answers 501, which stops the batch (exit 5).
import type { OfficeToPdfResult } from '@pdn/sdk';
import { type Command, Option } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { deliver } from '../deliver.js';
import { describeInput, describeOutput, formatBytes, pages } from '../format.js';
import { examples } from '../help.js';
import { checkInputs, UploadSource } from '../inputs.js';
import { asyncOption, resumeOption, skipExistingOption } from '../options.js';
import { officePdfName, outputPath } from '../output-naming.js';
import { assertDistinct, type OutputFlags, outputFolder, planTarget } from '../output-plan.js';
import { assertCanWrite, existingOutput } from '../output-writer.js';
import type { HumanView } from '../reporter.js';
import { type JobFlags, runJobs } from '../run-jobs.js';
import { uploadProgress } from '../upload-progress.js';

interface OfficeToPdfFlags extends OutputFlags, JobFlags {
  pages?: string;
  landscape?: boolean;
  pdfa?: 'pdfa-1b' | 'pdfa-2b' | 'pdfa-3b';
  pdfua?: boolean;
  bookmarks?: boolean;
}

export function registerOfficeToPdf(program: Command, io: Io): void {
  program
    .command('office-to-pdf')
    .summary('convert Word, Excel, PowerPoint, OpenDocument and RTF documents to PDF')
    .description(
      'Convert documents to PDF with the server’s LibreOffice: DOCX, DOC, XLSX, XLS, PPTX, PPT, ODT, ODS, ODP ' +
        'and RTF, recognised by their content. Each output is <name>.pdf next to its input, or in DIR with -o.',
    )
    .argument('<files...>', 'documents; - reads one from stdin')
    .option('--pages <ranges>', 'only these pages of the PDF, e.g. 1-3,7 (all when omitted)')
    .option('--landscape', 'turn the pages of text documents and sheets to landscape')
    .addOption(
      new Option('--pdfa <level>', 'write PDF/A at this level').choices(['pdfa-1b', 'pdfa-2b', 'pdfa-3b']),
    )
    .option('--pdfua', 'write a tagged PDF meeting PDF/UA')
    .option('--no-bookmarks', 'leave the headings out of the PDF’s bookmarks')
    .option('-o, --output <path>', 'output DIR; or FILE for a single input; or - for stdout')
    .option('-f, --force', 'overwrite existing output files')
    .addOption(skipExistingOption().conflicts('download'))
    .option('--no-download', 'print signed download URLs instead of downloading the PDFs')
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn office-to-pdf report.docx',
        'pdn office-to-pdf *.docx *.xlsx -o pdfs/',
        'pdn office-to-pdf deck.pptx --pages 1-3 --pdfa pdfa-2b',
        'cat letter.odt | pdn office-to-pdf - -o - > letter.pdf',
      ),
    )
    .action(async (files: string[], flags: OfficeToPdfFlags, command: Command) => {
      await officeToPdf(CommandContext.of(command, io), files, flags);
    });
}

async function officeToPdf(ctx: CommandContext, files: string[], flags: OfficeToPdfFlags): Promise<void> {
  await checkInputs(files, ctx.io.stdin);
  const target = await planTarget(ctx, flags, files.length);
  const paths = new Map(files.map((file) => [file, outputPath(target, file, officePdfName(file))]));
  if (flags.download) assertDistinct([...paths.values()]);
  const client = await ctx.connect();
  const uploads = new UploadSource(ctx.io.stdin);
  const options = {
    pages: flags.pages,
    landscape: flags.landscape,
    pdfa: flags.pdfa,
    pdfua: flags.pdfua,
    // Commander's --no-bookmarks sets false; the server's default is true.
    bookmarks: flags.bookmarks === false ? false : undefined,
  };

  await runJobs(ctx, client, {
    command: 'office-to-pdf',
    items: files,
    input: (file) => file,
    skip: async (file) => {
      const existing = flags.skipExisting ? await existingOutput(paths.get(file)) : undefined;
      return existing && { reason: 'output_exists', outputs: [existing] };
    },
    options: { ...options, output: flags.output, download: flags.download },
    stateFolder: outputFolder(target),
    flags,
    steps: {
      operation: 'office_to_pdf',
      doing: 'converting',
      prepare: (file) => assertCanWrite(flags.download ? paths.get(file) : undefined, flags.force === true),
      params: async (file, progress) => {
        const upload = await uploads.upload(file, 'stdin-document');
        progress('uploading');
        return { file: upload, ...options, onUploadProgress: uploadProgress(progress, 'submitting') };
      },
      deliver: async (file, result, progress) => {
        const path = flags.download ? paths.get(file) : undefined;
        return [await deliver(ctx, client, result.download, path, flags.force === true, progress)];
      },
    },
    view: officeView,
  });
}

const officeView: HumanView = {
  resumable: true,
  succeeded(item, style) {
    const data = item.data as OfficeToPdfResult;
    return `${style.green('✔')} ${describeInput(item.input)} → ${describeOutput(item.outputs[0])}  ${pages(data.page_count)}  ${formatBytes(data.size)} ${style.dim(`(${data.format})`)}`;
  },
};
