// `pdn merge <files...> -o out.pdf`: one request joining 2-20 PDFs in the order given.
// The SDK refuses fewer than 2 or more than 20 files before sending (bin.ts exits 2 for that).
import type { Command } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { examples } from '../help.js';
import { addOneOutputOptions, runOneOutput } from '../one-output-run.js';
import type { OutputFlags } from '../output-plan.js';
import type { JobFlags } from '../run-jobs.js';

export function registerMerge(program: Command, io: Io): void {
  const command = program
    .command('merge')
    .summary('merge 2-20 PDFs into one')
    .description('Merge 2 to 20 PDFs into one document, pages in the order the files are given.')
    .argument('<files...>', 'PDF files in page order; - reads one from stdin');
  addOneOutputOptions(command, 'the merged PDF')
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

function merge(ctx: CommandContext, files: string[], flags: MergeFlags): Promise<void> {
  return runOneOutput(ctx, files, flags, {
    command: 'merge',
    operation: 'merge',
    doing: 'merging',
    stdinName: 'stdin.pdf',
    options: {},
    params: (uploads, onUploadProgress) => ({ files: uploads, onUploadProgress }),
  });
}
