// The operators' log, as the real binary writes it on stderr: JSON lines only, whatever
// its tools and OCR processes print (their diagnostics go into it at debug level, never raw), each
// line naming the role; at start, each engine and the OCR languages said once; a flood of refusals
// any client can cause logged as one warning, never at error.
import { labelledPdf, ocrSample } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { file, form } from './harness/form.js';
import { HOLDING_ENV, holdAPlace } from './harness/hold-a-place.js';
import { startServer, type TestServer } from './harness/server.js';
import { tools } from './harness/tools.js';

let server: TestServer;
/** Every line of the log, parsed; the whole run fits in the harness's tail. */
let lines: Record<string, unknown>[];
/** A Premium user's synchronous calls in progress at once (plans.ts). */
const PREMIUM_CALLS = 20;
/** Calls refused `503 server_busy` while those are held. */
const FLOOD = 30;

beforeAll(async () => {
  server = await startServer({
    env: { PDN_LOG_LEVEL: 'debug', PDN_OCR_ENGINE: 'tesseract.js', ...HOLDING_ENV },
  });
  const key = await server.createKey({ user: 'logged', plan: 'premium' });
  const post = async (path: string, body: FormData) => {
    const res = await fetch(server.url(path), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body,
    });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
  };
  // Work that runs tools (qpdf or pdf-lib) and an OCR process (tesseract.js).
  await post(
    '/api/v1/merge',
    form(file('files[]', await labelledPdf('A', 1)), file('files[]', await labelledPdf('B', 1))),
  );
  const sample = await ocrSample('eng', 'png');
  await post('/api/v1/ocr', form(file('image', sample.bytes, 'eng.png')));
  // A flood of refusals any client can cause: every place of the user's held, then more calls.
  const holders = await Promise.all(
    Array.from({ length: PREMIUM_CALLS }, () => holdAPlace(server.baseUrl, key)),
  );
  const refused = await Promise.all(
    Array.from({ length: FLOOD }, async () => {
      const res = await fetch(server.url('/api/v1/merge'), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form(file('files[]', await labelledPdf('C', 1))),
      });
      return ((await res.json()) as { error: { code: string } }).error.code;
    }),
  );
  expect(refused).toEqual(Array(FLOOD).fill('server_busy'));
  for (const socket of holders) socket.destroy();
  await server.kill();
  const text = server.log;
  lines = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`a line of the server's stderr is not a JSON log line: ${line}`);
      }
    });
});

afterAll(async () => {
  await server.stop();
});

describe("the server's stderr", () => {
  it('holds JSON log lines only, each naming the role', () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).toMatchObject({ level: expect.any(String), role: 'all' });
  });

  it.skipIf(!tools.qpdf)("carries the tools' runs at debug level, with the request id", () => {
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'debug', msg: 'tool finished', request_id: expect.any(String) }),
    );
  });

  it('logs a flood of 503 server_busy refusals as one warning, and none of them at error', () => {
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.filter((line) => line.msg === 'call refused')).toEqual([
      expect.objectContaining({ level: 'warn', code: 'server_busy' }),
    ]);
  });

  it('says each engine once at start, and which OCR languages it offers', () => {
    for (const engine of ['PDF engine: ', 'Compress engine: ', 'OCR of documents: '])
      expect(lines.filter((line) => String(line.msg).startsWith(engine))).toHaveLength(1);
    const ocr = lines.filter((line) => line.msg === 'OCR engine ready');
    expect(ocr).toEqual([
      expect.objectContaining({ engine: 'tesseract.js', languages: expect.arrayContaining(['eng']) }),
    ]);
  });
});
