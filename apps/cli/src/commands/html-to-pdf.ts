// `pdn html-to-pdf page.html [assets...] -o out.pdf` (openapi.yaml `htmlToPdf`): one request printing
// the page with the files it loads, each asset sent under its path relative to the page's folder, as
// the page names it (`site/css/a.css` beside `site/index.html` is `css/a.css`). The SDK refuses
// options outside the contract's values before sending (bin.ts exits 2 for that).
import { dirname, relative, sep } from 'node:path';
import { type Command, Option } from 'commander';
import { CommandContext, type Io } from '../context.js';
import { UsageError } from '../errors.js';
import { examples } from '../help.js';
import { addOneOutputOptions, runOneOutput } from '../one-output-run.js';
import { marginOf } from '../options.js';
import type { OutputFlags } from '../output-plan.js';
import type { JobFlags } from '../run-jobs.js';

interface HtmlToPdfFlags extends OutputFlags, JobFlags {
  paper?: 'a4' | 'letter' | 'legal' | 'a3' | 'a5' | 'tabloid';
  landscape?: boolean;
  margin?: string;
  background?: boolean;
  header?: string;
  footer?: string;
  javascript?: boolean;
  waitUntil?: 'load' | 'network_idle';
  waitFor?: string;
}

export function registerHtmlToPdf(program: Command, io: Io): void {
  const command = program
    .command('html-to-pdf')
    .summary('print an HTML page, with its stylesheets, images and fonts, to PDF')
    .description(
      'Print an HTML page to PDF with the server’s Chromium. Give the files the page loads after it: each is ' +
        'sent under its path relative to the page’s folder, as the page names it. Nothing else is reached: ' +
        'no network, no other file. Scripts run only with --javascript.',
    )
    .argument('<page>', 'the HTML page; - reads it from stdin (assets are then relative to this folder)')
    .argument('[assets...]', 'stylesheets, images, fonts and scripts the page loads, inside its folder')
    .addOption(
      new Option('--paper <size>', 'a4 (default), letter, legal, a3, a5 or tabloid').choices([
        'a4',
        'letter',
        'legal',
        'a3',
        'a5',
        'tabloid',
      ]),
    )
    .option('--landscape', 'turn the paper')
    .option('--margin <mm>', 'margin on every side, 0 to 50 millimetres (default 10)')
    .option('--background', 'print background colours and images')
    .option('--header <html>', 'header template (classes pageNumber, totalPages, title, date, url)')
    .option('--footer <html>', 'footer template, as --header')
    .option('--javascript', 'run the page’s scripts, within the plan’s seconds per request')
    .addOption(
      new Option('--wait-until <event>', 'load (default) or network_idle').choices(['load', 'network_idle']),
    )
    .option('--wait-for <selector>', 'print once an element matches this CSS selector');
  addOneOutputOptions(command, 'the PDF')
    .addHelpText(
      'after',
      examples(
        'pdn html-to-pdf site/index.html site/css/site.css site/img/logo.png -o site.pdf',
        'pdn html-to-pdf report.html --paper letter --landscape --background -o report.pdf',
        'pdn html-to-pdf app.html app.js --javascript --wait-for "#chart.ready" -o chart.pdf',
        'pdn html-to-pdf page.html --footer \'<div style="font-size:9px">Page <span class="pageNumber"></span></div>\' -o -',
      ),
    )
    .action(async (page: string, assets: string[], flags: HtmlToPdfFlags, command: Command) => {
      await htmlToPdf(CommandContext.of(command, io), page, assets, flags);
    });
}

/** Each asset's path as the page names it: relative to the page's folder, with `/` between segments. */
export function assetNames(page: string, assets: readonly string[]): string[] {
  const folder = page === '-' ? '.' : dirname(page);
  return assets.map((asset) => {
    const name = relative(folder, asset);
    if (name === '' || name.startsWith('..') || name.startsWith(sep))
      throw new UsageError(`${asset} is not inside the page’s folder ${folder}: the page could not load it`);
    return name.split(sep).join('/');
  });
}

function htmlToPdf(
  ctx: CommandContext,
  page: string,
  assets: string[],
  flags: HtmlToPdfFlags,
): Promise<void> {
  const names = assetNames(page, assets);
  const options = {
    paperSize: flags.paper,
    landscape: flags.landscape,
    marginMm: marginOf(flags.margin),
    printBackground: flags.background,
    headerTemplate: flags.header,
    footerTemplate: flags.footer,
    javascript: flags.javascript,
    waitUntil: flags.waitUntil,
    waitFor: flags.waitFor,
  };
  return runOneOutput(ctx, [page, ...assets], flags, {
    command: 'html-to-pdf',
    operation: 'html_to_pdf',
    doing: 'printing',
    stdinName: 'stdin.html',
    options,
    params: ([html, ...uploads], onUploadProgress) => {
      if (html === undefined) throw new UsageError('html-to-pdf needs the page');
      return {
        html,
        assets: Object.fromEntries(names.map((name, index) => [name, uploads[index] ?? new Uint8Array()])),
        ...options,
        onUploadProgress,
      };
    },
  });
}
