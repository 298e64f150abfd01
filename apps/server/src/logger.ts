// Operators' log: one readable line per event on stderr, e.g.
//   2026-11-22T06:00:00.000Z INFO  request finished request_id=3f9a… status=200 ms=41
// Fields bound with child() (the request id) are repeated on every line so a request's story can be
// grepped. Stdout stays free for what the admin command prints (keys, the start-up banner).
import type { LogLevel } from './config.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line it writes. */
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, quiet: 100 };

function formatValue(value: unknown): string {
  if (value instanceof Error) {
    // Keep the stack: a 500's cause is only ever visible here.
    return JSON.stringify(value.stack ?? `${value.name}: ${value.message}`);
  }
  if (typeof value === 'string') {
    return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  }
  return JSON.stringify(value) ?? String(value);
}

function formatLine(level: Exclude<LogLevel, 'quiet'>, message: string, fields: LogFields): string {
  const parts = [new Date().toISOString(), level.toUpperCase().padEnd(5), message];
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(`${key}=${formatValue(value)}`);
  }
  return `${parts.join(' ')}\n`;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
  bound: LogFields = {},
): Logger {
  const emit = (lineLevel: Exclude<LogLevel, 'quiet'>, message: string, fields: LogFields = {}) => {
    if (RANK[lineLevel] < RANK[level]) return;
    write(formatLine(lineLevel, message, { ...bound, ...fields }));
  };
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    child: (fields) => createLogger(level, write, { ...bound, ...fields }),
  };
}
