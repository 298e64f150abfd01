// Operators' log on stderr, through pino (STYLE.md point 22). By default one JSON object per
// line for a log collector, e.g.
//   {"level":"info","time":"2026-11-22T06:00:00.000Z","request_id":"3f9a…","status":200,"ms":41,"msg":"request"}
// and with PDN_LOG_FORMAT=pretty one readable line per event for a terminal:
//   2026-11-22T06:00:00.000Z INFO  request request_id=3f9a… status=200 ms=41
// Fields bound with child() (the request id) are repeated on every line so a request's story can be
// grepped. Stdout stays free for what the admin command prints (keys, the start-up banner).
import { type Logger as PinoLogger, pino, stdSerializers, stdTimeFunctions } from 'pino';
import type { LogFormat, LogLevel } from './config.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line it writes. */
  child(fields: LogFields): Logger;
}

/** The field errors are logged under; pino's serializer keeps their type, message and stack. */
const ERROR_KEY = 'error';

type LineLevel = Exclude<LogLevel, 'quiet'>;

/** The keys pino writes on every line itself. */
const LINE_KEYS = ['level', 'time', 'msg'];

/**
 * A field named like one of the line's own keys is written as `field_<key>`: pino would write the key
 * twice, and readers (a log collector, prettyLine) keep the last one, so a compress job's
 * `level: 'high'` once filed its line under a log level "high".
 */
export function withoutLineKeys(fields: LogFields): LogFields {
  if (!LINE_KEYS.some((key) => key in fields)) return fields;
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [LINE_KEYS.includes(key) ? `field_${key}` : key, value]),
  );
}

function prettyValue(value: unknown): string {
  if (typeof value === 'string') {
    return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  }
  return JSON.stringify(value) ?? String(value);
}

/** Rewrites one of pino's JSON lines as `time LEVEL message key=value…`, an error as its stack. */
export function prettyLine(json: string): string {
  const { level, time, msg, ...fields } = JSON.parse(json) as LogFields;
  const parts = [String(time), String(level).toUpperCase().padEnd(5), String(msg)];
  for (const [key, value] of Object.entries(fields)) {
    const error = key === ERROR_KEY ? (value as { stack?: unknown } | null) : null;
    parts.push(`${key}=${prettyValue(typeof error?.stack === 'string' ? error.stack : value)}`);
  }
  return `${parts.join(' ')}\n`;
}

function wrap(log: PinoLogger): Logger {
  const at = (level: LineLevel) => (message: string, fields?: LogFields) =>
    fields === undefined ? log[level](message) : log[level](fields, message);
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (fields) => wrap(log.child(fields)),
  };
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
  format: LogFormat = 'json',
): Logger {
  const log = pino(
    {
      level: level === 'quiet' ? 'silent' : level,
      // No pid/hostname on every line: the collector knows which process it reads.
      base: null,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: withoutLineKeys },
      errorKey: ERROR_KEY,
      serializers: { [ERROR_KEY]: stdSerializers.err },
    },
    // A plain synchronous stream: no transport worker thread, and a line is out before a crash.
    { write: format === 'pretty' ? (line: string) => write(prettyLine(line)) : write },
  );
  return wrap(log);
}
