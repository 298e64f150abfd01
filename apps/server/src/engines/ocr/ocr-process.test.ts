// What an OCR process prints reaches the operators' log at debug level, never the server's stderr raw:
// tesseract.js's recogniser warns on stderr about an image that states no resolution.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { detectTools } from '../tools.js';
import { loadLanguageRegistry } from './language-registry.js';
import { OcrProcess } from './ocr-process.js';

const { prlimit } = await detectTools();

describe('OcrProcess', () => {
  it.skipIf(prlimit === undefined)(
    'puts what tesseract.js prints into the log at debug level',
    async () => {
      const quiet = { info: () => {}, warn: () => {} };
      const debug: [string, Record<string, unknown> | undefined][] = [];
      const languages = (await loadLanguageRegistry({ log: quiet })).select('eng');
      const dir = await mkdtemp(join(tmpdir(), 'pdn-ocr-process-'));
      const ocrProcess = await OcrProcess.start({
        memoryLimit: { prlimit: prlimit?.path ?? '', bytes: 1024 * 2 ** 20 },
        languages,
        timeoutMs: 60_000,
        log: { ...quiet, debug: (message, fields) => debug.push([message, fields]) },
      });
      try {
        // No pHYs chunk: tesseract.js says it guesses the resolution.
        const page = join(dir, 'page.png');
        await sharp({ create: { width: 300, height: 80, channels: 3, background: 'white' } })
          .png()
          .toFile(page);
        await ocrProcess.recognize([page]);
        expect(debug).toContainEqual([
          'OCR process stderr',
          { pid: expect.any(Number), stderr: expect.stringMatching(/resolution/i) },
        ]);
      } finally {
        await ocrProcess.terminate();
        await rm(dir, { recursive: true, force: true });
      }
      // Starting tesseract.js and reading a page took over 5 s, vitest's default, at a load average of 10.
    },
    60_000,
  );
});
