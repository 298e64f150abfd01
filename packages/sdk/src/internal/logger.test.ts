import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { type Logger, type LogLevel, levelled, loggable } from './logger.js';

function spy(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const line = (level: string) => (message: string) => lines.push(`${level} ${message}`);
  return { lines, debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

function logAll(logger: Logger): void {
  logger.debug('d');
  logger.info('i');
  logger.warn('w');
  logger.error('e');
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('levelled', () => {
  const table: Array<[string, { option: LogLevel | undefined; env: string; want: string[] }]> = [
    ['warn by default', { option: undefined, env: '', want: ['warn w', 'error e'] }],
    [
      'debug passes everything',
      { option: 'debug', env: '', want: ['debug d', 'info i', 'warn w', 'error e'] },
    ],
    ['off passes nothing', { option: 'off', env: '', want: [] }],
    [
      'PDN_LOG when the option is absent',
      { option: undefined, env: 'info', want: ['info i', 'warn w', 'error e'] },
    ],
    ['PDN_LOG in capitals', { option: undefined, env: 'ERROR', want: ['error e'] }],
    ['the option over PDN_LOG', { option: 'error', env: 'debug', want: ['error e'] }],
  ];
  it.each(table)('%s', (_name, { option, env, want }) => {
    vi.stubEnv('PDN_LOG', env);
    const sink = spy();
    logAll(levelled(sink, option));
    expect(sink.lines).toEqual(want);
  });

  it('points out a PDN_LOG it does not know, and keeps warn', () => {
    vi.stubEnv('PDN_LOG', 'verbose');
    const sink = spy();
    logAll(levelled(sink, undefined));
    expect(sink.lines).toEqual([
      'warn PDN_LOG=verbose is not one of debug, info, warn, error, off; using warn',
      'warn w',
      'error e',
    ]);
  });

  it('refuses an unknown logLevel option', () => {
    expect(() => levelled(spy(), 'verbose' as LogLevel)).toThrow(InvalidInputError);
  });
});

it('loggable drops the query, where a download keeps its signature', () => {
  expect(loggable('http://h/api/get-pdf.php?file=a&sig=secret')).toBe('http://h/api/get-pdf.php');
});
