import { describe, expect, it } from 'vitest';
import type { LogFormat, LogLevel } from './config.js';
import { createLogger } from './logger.js';

function capture(level: LogLevel, format: LogFormat = 'json') {
  const lines: string[] = [];
  return { lines, log: createLogger(level, (line) => lines.push(line), format) };
}

describe('createLogger', () => {
  it('writes one JSON line with level, time, bound fields, fields and message', () => {
    const { lines, log } = capture('info');
    log.child({ request_id: 'abc-123' }).info('request', { status: 200, path: '/api/v1/merge' });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      request_id: 'abc-123',
      status: 200,
      path: '/api/v1/merge',
      msg: 'request',
    });
  });

  it("never lets a field replace the line's level, time or message", () => {
    const { lines, log } = capture('info');
    log.info('compressed', { level: 'high', time: 3, msg: 'field' });
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-/),
      field_msg: 'field',
      field_level: 'high',
      field_time: 3,
      msg: 'compressed',
    });
    expect(lines[0]?.match(/"level"/g)).toHaveLength(1);
  });

  it('keeps an error type, message and stack under "error"', () => {
    const { lines, log } = capture('info');
    log.error('request failed', { error: new TypeError('boom') });
    const { error } = JSON.parse(lines[0] ?? '') as { error: Record<string, string> };
    expect(error).toMatchObject({ type: 'TypeError', message: 'boom' });
    expect(error.stack).toMatch(/^TypeError: boom\n {4}at /);
  });

  it('writes readable lines in the pretty format, an error as its stack on the same line', () => {
    const { lines, log } = capture('info', 'pretty');
    log
      .child({ request_id: 'abc-123' })
      .info('request', { status: 200, path: '/api/v1/merge', note: 'two words' });
    log.error('request failed', { error: new Error('boom') });
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}request request_id=abc-123 status=200 path=\/api\/v1\/merge note="two words"\n$/,
    );
    expect(lines[1]?.split('\n')).toHaveLength(2);
    expect(lines[1]).toContain('ERROR request failed error="Error: boom\\n    at ');
  });

  const table: [LogLevel, string[]][] = [
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
    ['quiet', []],
  ];
  it.each(table)('at level %s writes %j', (level, want) => {
    const { lines, log } = capture(level);
    log.debug('debug');
    log.info('info');
    log.warn('warn');
    log.error('error');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(want);
  });
});
