// `pdn ocr <images...> [--language CODE] [-o FILE|DIR]`: text to stdout by default, or
// to `<name>.txt` files. One request per image, run as a batch.
import type { OcrResult } from '@pdn/sdk';
import type { Command } from 'commander';
import { checkLanguage } from '../check-language.js';
import { CommandContext, type Io } from '../context.js';
import { describeInput, describeOutput } from '../format.js';
import { examples } from '../help.js';
import { checkInputs, UploadSource } from '../inputs.js';
import { asyncOption, resumeOption, skipExistingOption } from '../options.js';
import { type OutputTarget, ocrTextName, outputPath, STDIO } from '../output-naming.js';
import { assertDistinct, outputFolder, planTarget } from '../output-plan.js';
import { assertCanWrite, existingOutput, writeOutput } from '../output-writer.js';
import type { HumanView } from '../reporter.js';
import { type JobFlags, runJobs } from '../run-jobs.js';
import { uploadProgress } from '../upload-progress.js';

interface OcrFlags extends JobFlags {
  language?: string;
  output?: string;
  force?: boolean;
  skipExisting?: boolean;
}

export function registerOcr(program: Command, io: Io): void {
  program
    .command('ocr')
    .summary('extract text from images')
    .description(
      'Extract text from images (PNG, JPEG, TIFF, WebP, BMP). Prints the text, or writes <name>.txt files with -o.',
    )
    .argument('<images...>', 'image files; - reads one from stdin')
    .option(
      '-l, --language <code>',
      'OCR language, e.g. deu, or several joined by + (see `pdn languages`); server default eng',
    )
    .option(
      '-o, --output <path>',
      'text FILE for a single image, or DIR for <name>.txt files; default stdout',
    )
    .option('-f, --force', 'overwrite existing text files')
    .addOption(skipExistingOption())
    .addOption(asyncOption())
    .addOption(resumeOption())
    .addHelpText(
      'after',
      examples(
        'pdn ocr scan.png',
        'pdn ocr page-*.png --language deu -o text/',
        'pdn ocr scan.png --json | jq -r .results[0].data.text',
        'pdn ocr pages/*.png -o text/ --resume',
      ),
    )
    .action(async (images: string[], flags: OcrFlags, command: Command) => {
      await ocr(CommandContext.of(command, io), images, flags);
    });
}

async function ocr(ctx: CommandContext, images: string[], flags: OcrFlags): Promise<void> {
  await checkInputs(images, ctx.io.stdin);
  // Text goes to stdout unless -o names a file or folder; stdout text is printed in input order at the end.
  const target: OutputTarget =
    flags.output === undefined || flags.output === STDIO
      ? { kind: 'stdout' }
      : await planTarget(ctx, { ...flags, output: flags.output, download: true }, images.length);
  if (target.kind !== 'stdout')
    assertDistinct(images.map((image) => outputPath(target, image, ocrTextName(image))));
  const client = await ctx.connect();
  if (flags.language !== undefined) await checkLanguage(ctx, client, flags.language);
  const uploads = new UploadSource(ctx.io.stdin);

  await runJobs(ctx, client, {
    command: 'ocr',
    items: images,
    input: (image) => image,
    skip: async (image) => {
      const path = outputPath(target, image, ocrTextName(image));
      const existing = flags.skipExisting ? await existingOutput(path) : undefined;
      return existing && { reason: 'output_exists', outputs: [existing] };
    },
    options: { language: flags.language, output: flags.output },
    stateFolder: outputFolder(target),
    flags,
    steps: {
      operation: 'ocr',
      doing: 'reading',
      prepare: (image) => assertCanWrite(outputPath(target, image, ocrTextName(image)), flags.force === true),
      params: async (image, progress) => {
        const upload = await uploads.upload(image, 'stdin');
        progress('uploading');
        return {
          image: upload,
          ...(flags.language !== undefined ? { language: flags.language } : {}),
          onUploadProgress: uploadProgress(progress, 'submitting'),
        };
      },
      deliver: async (image, result) => {
        const path = outputPath(target, image, ocrTextName(image));
        if (path === STDIO) return [{ kind: 'stdout', bytes: Buffer.byteLength(result.text) }];
        const bytes = await writeOutput(path, result.text, {
          force: flags.force === true,
          signal: ctx.io.signal,
        });
        return [{ kind: 'file', path, bytes }];
      },
    },
    view: ocrView(target, images.length),
  });
}

function ocrView(target: OutputTarget, count: number): HumanView {
  if (target.kind !== 'stdout') {
    return {
      resumable: true,
      succeeded(item, style) {
        const data = item.data as OcrResult;
        return `${style.green('✔')} ${describeInput(item.input)} → ${describeOutput(item.outputs[0])}  ${data.text.length} characters, ${data.language}, ${Math.round(data.confidence)}% confidence`;
      },
    };
  }
  return {
    essential: true,
    succeeded(item) {
      const text = (item.data as OcrResult).text.replace(/\s+$/, '');
      // Several images: a header per image, as `head` and `tail` do for several files.
      return count > 1 ? `==> ${describeInput(item.input)} <==\n${text}\n` : text;
    },
  };
}
