// `pdn images-to-pdf <images...> -o out.pdf` (openapi.yaml `imagesToPdf`): one request making one PDF
// of the images, a page each in the order given. The SDK refuses no image or more than 500, and any
// option outside the contract's values, before sending (bin.ts exits 2 for that).
import { type Command, Option } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { examples } from '../help.js';
import { addOneOutputOptions, runOneOutput } from '../one-output-run.js';
import { marginOf } from '../options.js';
import type { OutputFlags } from '../output-plan.js';
import type { JobFlags } from '../run-jobs.js';

interface ImagesToPdfFlags extends OutputFlags, JobFlags {
  pageSize?: 'image' | 'a3' | 'a4' | 'a5' | 'letter' | 'legal';
  orientation?: 'auto' | 'portrait' | 'landscape';
  fit?: 'contain' | 'cover';
  margin?: string;
}

export function registerImagesToPdf(program: Command, io: Io): void {
  const command = program
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
    .option('--margin <mm>', 'white space around each image, 0 to 50 millimetres (default 0)');
  addOneOutputOptions(command, 'the PDF')
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

function imagesToPdf(ctx: CommandContext, images: string[], flags: ImagesToPdfFlags): Promise<void> {
  const layout = {
    pageSize: flags.pageSize,
    orientation: flags.orientation,
    fit: flags.fit,
    marginMm: marginOf(flags.margin),
  };
  return runOneOutput(ctx, images, flags, {
    command: 'images-to-pdf',
    operation: 'images_to_pdf',
    doing: 'converting',
    stdinName: 'stdin-image',
    options: layout,
    params: (uploads, onUploadProgress) => ({ images: uploads, ...layout, onUploadProgress }),
  });
}
