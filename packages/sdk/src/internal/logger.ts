// The SDK's logging: a level and a pluggable sink. `console` by default;
// `logLevel`, else the PDN_LOG environment variable where there is a `process` (Node), else `warn`.
// Messages never carry the API key or a download URL's query (its signature is a credential).
import { InvalidInputError } from '../errors.js';
import { readEnv } from './env.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/** Any object with these four methods: `console`, pino, winston, a test spy... */
export interface Logger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/**
 * The default sink. Where there is a process (Node, Bun, Deno), every level goes to stderr through
 * console.error, prefixed: stdout belongs to the program (a CLI's `--json`, a pipe), and console.debug
 * and console.info write there. Elsewhere (browsers) the console as it is.
 */
export function defaultLogger(): Logger {
  const stderr = (globalThis as { process?: { stderr?: { write?: unknown } } }).process?.stderr;
  if (typeof stderr?.write !== 'function') return console;
  const line =
    (level: string) =>
    (message: string, ...details: unknown[]): void =>
      console.error(`[pdn-sdk] ${level} ${message}`, ...details);
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

const ranks: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

function isLevel(value: string): value is LogLevel {
  return Object.hasOwn(ranks, value);
}

/** The sink behind the level: methods below the level do nothing. */
export function levelled(sink: Logger, option: LogLevel | undefined): Logger {
  if (option !== undefined && !isLevel(option)) {
    throw new InvalidInputError(`logLevel must be one of ${Object.keys(ranks).join(', ')}, got ${option}`);
  }
  const fromEnv = readEnv('PDN_LOG')?.toLowerCase();
  let level: LogLevel = option ?? 'warn';
  if (option === undefined && fromEnv !== undefined) {
    if (isLevel(fromEnv)) level = fromEnv;
    // A typo in an environment variable should not break the program, only be pointed out.
    else sink.warn(`PDN_LOG=${fromEnv} is not one of ${Object.keys(ranks).join(', ')}; using warn`);
  }
  const on = (method: Exclude<LogLevel, 'off'>): Logger[typeof method] =>
    ranks[method] >= ranks[level] ? (message, ...details) => sink[method](message, ...details) : () => {};
  return { debug: on('debug'), info: on('info'), warn: on('warn'), error: on('error') };
}

/** A URL as it may appear in a log: without the query, which for downloads holds the signature. */
export function loggable(url: string): string {
  return url.split('?')[0] ?? url;
}
