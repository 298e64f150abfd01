// The `pdn` command tree. Built per run so tests can parse
// arguments without a process; bin.ts runs it and maps errors to exit codes.
import { readFileSync } from 'node:fs';
import { Command, Help, Option } from 'commander';
import { registerCompletion } from './commands/completion.js';
import { registerCompress } from './commands/compress.js';
import { registerConfig } from './commands/config.js';
import { registerHtmlToPdf } from './commands/html-to-pdf.js';
import { registerImagesToPdf } from './commands/images-to-pdf.js';
import { registerJobs } from './commands/jobs.js';
import { registerLanguages } from './commands/languages.js';
import { registerLogin } from './commands/login.js';
import { registerMerge } from './commands/merge.js';
import { registerOcr } from './commands/ocr.js';
import { registerOcrPdf } from './commands/ocr-pdf.js';
import { registerOfficeToPdf } from './commands/office-to-pdf.js';
import { registerPdfToImages } from './commands/pdf-to-images.js';
import { registerSplit } from './commands/split.js';
import { registerStatus } from './commands/status.js';
import type { Io } from './context.js';
import { examples } from './help.js';
import { parseNonNegativeInt, parsePositiveInt } from './options.js';

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** `pdn 1.0.0 (node v20.20.0, linux-x64)`: what a bug report needs. */
export const versionLine = `pdn ${version} (node ${process.version}, ${process.platform}-${process.arch})`;

const API = ['apiKey', 'baseUrl', 'json', 'maxRetries', 'quiet', 'verbose'];

/**
 * The root options each command uses, by top-level command name; a command's --help (and its shell
 * completion) lists only these, so it shows only the options that apply to it. They are still accepted
 * anywhere, so `pdn --json compress a.pdf` and `pdn compress a.pdf --json` both work.
 */
const GLOBALS_USED: Record<string, readonly string[]> = {
  compress: [...API, 'concurrency'],
  ocr: [...API, 'concurrency'],
  'ocr-pdf': [...API, 'concurrency'],
  merge: API,
  split: API,
  languages: API,
  status: API,
  jobs: [...API, 'concurrency'],
  config: ['json'],
  login: ['baseUrl', 'json'],
  logout: ['baseUrl', 'json'],
  completion: [],
};

export function createProgram(io: Io): Command {
  const program = new Command('pdn')
    .description('Compress, merge, split and OCR documents with the pdn API.')
    .version(versionLine, '-V, --version')
    // Settings made before .command() are inherited by every subcommand.
    .exitOverride()
    .configureHelp({
      showGlobalOptions: true,
      visibleGlobalOptions(command) {
        let top = command;
        while (top.parent?.parent) top = top.parent;
        const all = Help.prototype.visibleGlobalOptions.call(this, command);
        // A command missing from the table shows them all rather than hide one it uses.
        const used = GLOBALS_USED[top.name()];
        return used === undefined ? all : all.filter((option) => used.includes(option.attributeName()));
      },
    })
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .option('--api-key <key>', 'API key (default: $PDN_API_KEY, then the config file)')
    .option(
      '--base-url <url>',
      'API base URL (default: $PDN_BASE_URL, then the config file, then http://127.0.0.1:3000)',
    )
    .option('--json', 'print one JSON document with every result on stdout')
    .option('-c, --concurrency <n>', 'files processed in parallel', parsePositiveInt, 4)
    .option(
      '--max-retries <n>',
      'retries per request after 429, 5xx or network errors (default: 2)',
      parseNonNegativeInt,
    )
    .addOption(new Option('-q, --quiet', 'print only results and errors').conflicts('verbose'))
    .option('-v, --verbose', 'also print request ids and retries on stderr')
    .addHelpText(
      'after',
      `${examples(
        'export PDN_API_KEY=pdn_live_…',
        'pdn compress *.pdf --level high',
        'pdn merge a.pdf b.pdf -o ab.pdf',
        'pdn split ab.pdf --ranges 1,2-3',
        'pdn ocr scan.png',
        'pdn ocr-pdf scan.pdf --text',
        'pdn compress *.pdf --async',
        'pdn jobs list',
        'pdn status',
      )}
Exit codes: 0 all succeeded, 1 some or all operations failed, 2 usage error,
            3 authentication error, 4 rate limited after retries, 5 server cannot work now,
            6 server unreachable, 130 interrupted (Ctrl-C).
`,
    );
  registerCompress(program, io);
  registerMerge(program, io);
  registerSplit(program, io);
  registerOcr(program, io);
  registerOcrPdf(program, io);
  registerOfficeToPdf(program, io);
  registerImagesToPdf(program, io);
  registerPdfToImages(program, io);
  registerHtmlToPdf(program, io);
  registerLanguages(program, io);
  registerJobs(program, io);
  registerStatus(program, io);
  registerLogin(program, io);
  registerConfig(program, io);
  registerCompletion(program, io);
  // A usage error prints the error, commander's "(Did you mean --level?)", and one line naming the
  // command's --help (gh's habit): the whole help after it pushed the error off the screen.
  for (const command of everyCommand(program))
    command.showHelpAfterError(`Run '${commandPath(command)} --help' for usage.`);
  return program;
}

function* everyCommand(command: Command): Generator<Command> {
  yield command;
  for (const sub of command.commands) yield* everyCommand(sub);
}

/** `pdn config set`: the command's names from the root down. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current; current = current.parent)
    names.unshift(current.name());
  return names.join(' ');
}
