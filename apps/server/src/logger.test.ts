import { describe, expect, it } from 'vitest';
import type { LogLevel } from './config.js';
import { createLogger } from './logger.js';

function capture(level: LogLevel) {
  const lines: string[] = [];
  return { lines, log: createLogger(level, (line) => lines.push(line)) };
}

describe('createLogger', () => {
  it('writes one line with time, level, message and fields, bound fields first', () => {
    const { lines, log } = capture('info');
    log
      .child({ request_id: 'abc-123' })
      .info('request', { status: 200, path: '/api/v1/merge', note: 'two words' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}request request_id=abc-123 status=200 path=\/api\/v1\/merge note="two words"\n$/,
    );
  });

  it('keeps an error stack on its single line', () => {
    const { lines, log } = capture('info');
    log.error('request failed', { error: new Error('boom') });
    expect(lines[0]?.split('\n')).toHaveLength(2);
    expect(lines[0]).toContain('Error: boom\\n    at ');
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
    expect(lines.map((line) => line.trim().split(/\s+/)[2])).toEqual(want);
  });
});
