import { PassThrough } from 'node:stream';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Io } from './context.js';
import { createProgram, versionLine } from './program.js';

const stopped = new Error('parsed');

/** Parses argv as `pdn` would and returns the action's options and arguments, without running it. */
async function parse(
  argv: string[],
): Promise<{ options: Record<string, unknown>; args: unknown[] } | string> {
  const io: Io = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    signal: new AbortController().signal,
  };
  const program = createProgram(io);
  let parsed: { options: Record<string, unknown>; args: unknown[] } | undefined;
  program.hook('preAction', (_program, action) => {
    parsed = { options: action.optsWithGlobals(), args: action.processedArgs };
    throw stopped;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.code;
    if (error !== stopped) throw error;
  }
  if (parsed === undefined) throw new Error('no action ran');
  return parsed;
}

const defaults = { concurrency: 4 };

describe('argument parsing', () => {
  const accepted: [string, { argv: string[]; options: Record<string, unknown>; args: unknown[] }][] = [
    [
      'compress with defaults',
      {
        argv: ['compress', 'a.pdf', 'b.pdf'],
        options: { ...defaults, download: true },
        args: [['a.pdf', 'b.pdf']],
      },
    ],
    [
      'global flags after the command',
      {
        argv: ['compress', 'a.pdf', '--json', '-c', '8', '--max-retries', '0', '--level', 'high'],
        options: {
          ...defaults,
          json: true,
          concurrency: 8,
          maxRetries: 0,
          level: 'high',
          download: true,
        },
        args: [['a.pdf']],
      },
    ],
    [
      'key and base URL flags before the command',
      {
        argv: ['--api-key', 'k', '--base-url', 'http://h', 'languages'],
        options: { ...defaults, apiKey: 'k', baseUrl: 'http://h' },
        args: [],
      },
    ],
    [
      'stdin in and stdout out',
      {
        argv: ['compress', '-', '-o', '-'],
        options: { ...defaults, output: '-', download: true },
        args: [['-']],
      },
    ],
    [
      'merge without download',
      {
        argv: ['merge', 'a.pdf', 'b.pdf', '--no-download'],
        options: { ...defaults, download: false },
        args: [['a.pdf', 'b.pdf']],
      },
    ],
    [
      'split with ranges and a folder',
      {
        argv: ['split', 'book.pdf', '--ranges', '1-3,5', '-o', 'parts', '--force'],
        options: { ...defaults, ranges: '1-3,5', output: 'parts', force: true, download: true },
        args: ['book.pdf'],
      },
    ],
    [
      'ocr with a language',
      {
        argv: ['ocr', 'a.png', '-l', 'deu+eng', '-q'],
        options: { ...defaults, quiet: true, language: 'deu+eng' },
        args: [['a.png']],
      },
    ],
    [
      'ocr-pdf with every option',
      {
        argv: [
          'ocr-pdf',
          'scan.pdf',
          'fax.tiff',
          '-l',
          'eng',
          '--mode',
          'force',
          '--deskew',
          '--rotate',
          '--pages',
          '1-3,7',
          '--output-type',
          'pdfa',
          '--text',
          '-o',
          'out/',
        ],
        options: {
          ...defaults,
          language: 'eng',
          mode: 'force',
          deskew: true,
          rotate: true,
          pages: '1-3,7',
          outputType: 'pdfa',
          text: true,
          output: 'out/',
          download: true,
        },
        args: [['scan.pdf', 'fax.tiff']],
      },
    ],
    [
      'config set',
      { argv: ['config', 'set', 'api-key', 'x'], options: { ...defaults }, args: ['api-key', 'x'] },
    ],
  ];
  it.each(accepted)('%s', async (_name, { argv, options, args }) => {
    expect(await parse(argv)).toEqual({ options, args });
  });

  const refused: [string, { argv: string[]; code: string }][] = [
    ['unknown option', { argv: ['compress', 'a.pdf', '--bogus'], code: 'commander.unknownOption' }],
    ['unknown command', { argv: ['squash', 'a.pdf'], code: 'commander.unknownCommand' }],
    ['no files', { argv: ['compress'], code: 'commander.missingArgument' }],
    [
      'a level that does not exist',
      { argv: ['compress', 'a.pdf', '--level', 'max'], code: 'commander.invalidArgument' },
    ],
    ['concurrency 0', { argv: ['-c', '0', 'compress', 'a.pdf'], code: 'commander.invalidArgument' }],
    ['negative retries', { argv: ['--max-retries', '-1', 'languages'], code: 'commander.invalidArgument' }],
    ['split without ranges', { argv: ['split', 'book.pdf'], code: 'commander.missingMandatoryOptionValue' }],
    [
      'split with two files',
      { argv: ['split', 'a.pdf', 'b.pdf', '-r', '1'], code: 'commander.excessArguments' },
    ],
    ['quiet and verbose', { argv: ['-q', '-v', 'languages'], code: 'commander.conflictingOption' }],
    [
      '--skip-existing and --force',
      { argv: ['compress', 'a.pdf', '--skip-existing', '-f'], code: 'commander.conflictingOption' },
    ],
    [
      '--skip-existing and --no-download',
      {
        argv: ['merge', 'a.pdf', 'b.pdf', '--skip-existing', '--no-download'],
        code: 'commander.conflictingOption',
      },
    ],
    [
      'an ocr-pdf mode that does not exist',
      { argv: ['ocr-pdf', 'a.pdf', '--mode', 'all'], code: 'commander.invalidArgument' },
    ],
    [
      'an ocr-pdf output type that does not exist',
      { argv: ['ocr-pdf', 'a.pdf', '--output-type', 'pdfx'], code: 'commander.invalidArgument' },
    ],
    [
      'ocr-pdf --async with -o',
      { argv: ['ocr-pdf', 'a.pdf', '--async', '-o', 'x/'], code: 'commander.conflictingOption' },
    ],
    ['a shell completion does not know', { argv: ['completion', 'tcsh'], code: 'commander.invalidArgument' }],
    ['--help is not an error', { argv: ['compress', '--help'], code: 'commander.helpDisplayed' }],
    ['--version', { argv: ['--version'], code: 'commander.version' }],
  ];
  it.each(refused)('%s', async (_name, { argv, code }) => {
    expect(await parse(argv)).toBe(code);
  });
});

describe('--version', () => {
  it('names pdn, Node.js and the platform', () => {
    expect(versionLine).toMatch(/^pdn \d+\.\d+\.\d+ \(node v\d+\.\d+\.\d+, [a-z0-9]+-[a-z0-9]+\)$/);
  });
});
