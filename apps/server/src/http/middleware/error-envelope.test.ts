// How the error middleware logs what it answers: a fault at `error` with its cause, a flood of
// `503 server_busy` as one `warn` line and, a minute later, one line summing up the rest.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServerBusyError, ServiceUnavailableError } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { SUMMARY_WINDOW_MS } from '../refusal-log.js';
import { errorEnvelope } from './error-envelope.js';

interface Line {
  level: string;
  msg: string;
  code?: string;
  count?: number;
}

describe('errorEnvelope', () => {
  let lines: Line[];
  let answer: (error: Error) => Promise<number>;

  beforeEach(() => {
    vi.useFakeTimers();
    lines = [];
    const log = createLogger('debug', (line) => lines.push(JSON.parse(line) as Line));
    const middleware = errorEnvelope(log);
    answer = async (error) => {
      // The parts of a Koa context the middleware reads and writes, for a client still there.
      const ctx = {
        state: { log, requestId: 'req-1' },
        path: '/api/v1/merge',
        req: { socket: { destroyed: false } },
        res: { writableFinished: false },
        status: 404,
        body: undefined,
        remove() {},
        set() {},
      };
      await middleware(ctx as never, () => Promise.reject(error));
      return ctx.status;
    };
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('logs a flood of server_busy as one warn line, then one summing up the rest', async () => {
    for (let i = 0; i < 500; i++) expect(await answer(new ServerBusyError('busy'))).toBe(503);
    expect(lines).toMatchObject([{ level: 'warn', msg: 'call refused', code: 'server_busy' }]);
    vi.advanceTimersByTime(SUMMARY_WINDOW_MS);
    expect(lines.slice(1)).toMatchObject([
      { level: 'warn', msg: 'calls refused', code: 'server_busy', count: 499 },
    ]);
    // The next refusal opens a new window; a lone one is not summed up.
    await answer(new ServerBusyError('busy'));
    vi.advanceTimersByTime(SUMMARY_WINDOW_MS);
    expect(lines).toHaveLength(3);
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('logs a fault, and a backend out of reach, at error', async () => {
    expect(await answer(new Error('a bug'))).toBe(500);
    expect(await answer(new ServiceUnavailableError('no database'))).toBe(503);
    expect(lines).toMatchObject([
      { level: 'error', msg: 'request failed' },
      { level: 'error', msg: 'request failed' },
    ]);
  });
});
