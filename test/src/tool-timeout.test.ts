// A tool that overruns its time budget (Ghostscript took 18 s on a 60-page PDF with a fully embedded
// font): the tool's whole process group is gone, nothing is left on disk, and the server goes on
// serving. A compress out of time is the file's cost, not a fault: Ghostscript is given up and the
// answer is qpdf's lossless rewrite or the original, never a 500 a retry would meet again. The budget
// is set to the 1 s minimum so the overrun is certain, not a race.
import { setTimeout as sleep } from 'node:timers/promises';
import { embeddedFontPdf, labelledPdf, scannedDocumentPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { field, file, form } from './harness/form.js';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { type RunningProcess, runningProgram, toolsLeftAtWork } from './harness/processes.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

describe.skipIf(missing('ghostscript', 'the tool-timeout test'))('a Ghostscript run past its timeout', () => {
  const ctx = useServer({ env: { PDN_COMPRESS_ENGINE: 'ghostscript', PDN_TOOL_TIMEOUT_MS: '1000' } });
  let key: string;
  let heavy: Uint8Array;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'patient', plan: 'enterprise' });
    heavy = await embeddedFontPdf({ pages: 60 });
  });

  it("answers qpdf's rewrite or the original, kills the tool, leaves nothing behind, and goes on", async () => {
    const before = await listFiles(ctx.server);
    const res = await ctx.call<{ data: { method: string; page_count: number } }>('/api/v1/compress', {
      key,
      body: form(file('file', heavy, 'fonts.pdf'), field('level', 'medium')),
    });
    expect(res.status).toBe(200);
    expect(['qpdf', 'original']).toContain(res.json.data.method);
    expect(res.json.data.page_count).toBe(60);

    expect(await toolsLeftAtWork(ctx.server.dataDir)).toEqual([]);
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);

    const small = await ctx.call('/api/v1/compress', {
      key,
      body: form(file('file', await labelledPdf('S', 1), 's.pdf')),
    });
    expect(small.status).toBe(200);
  });
});

// OCRmyPDF run like every tool. Seen while it runs: its own process group (the tesseract runs
// it starts are killed with it), one thread per tesseract (OMP_THREAD_LIMIT=1), `--jobs` the server's job
// concurrency (1 here, where OCRmyPDF's own default is the CPU count). Then past its budget (1 s per
// round of `--jobs` pages: 2 s for these 2 pages of 36 lines at 300 dpi, which take OCRmyPDF 3.6 s of
// CPU one after the other) it goes, whole.
describe.skipIf(missing('ocrmypdf', 'the OCRmyPDF timeout test'))('an OCRmyPDF run past its timeout', () => {
  const ctx = useServer({
    env: { PDN_OCR_PDF_ENGINE: 'ocrmypdf', PDN_TOOL_TIMEOUT_MS: '1000', PDN_JOB_CONCURRENCY: '1' },
  });

  it('runs in a process group of its own, one thread per page, its jobs bounded; then is killed whole', async () => {
    const key = await ctx.server.createKey({ user: 'reader', plan: 'enterprise' });
    const scan = await scannedDocumentPdf({ pages: 2, seed: 41, dpi: 300, blocks: 12 });
    const before = await listFiles(ctx.server);
    let settled = false;
    const answer = ctx
      .call<{ error: { message: string } }>('/api/v1/ocr/pdf', {
        key,
        body: form(file('file', scan.bytes, 'scan.pdf')),
      })
      .finally(() => {
        settled = true;
      });
    let seen: RunningProcess | undefined;
    while (!settled && seen === undefined) {
      seen = await runningProgram('ocrmypdf', ctx.server.dataDir);
      await sleep(20);
    }
    const res = await answer;
    expect(res.status).toBe(500);
    expect(res.json.error.message).not.toContain(ctx.server.rootDir);
    expect(seen, 'OCRmyPDF was not seen running').toBeDefined();
    expect(seen?.group).toBe(seen?.pid);
    expect(seen?.environment).toContain('OMP_THREAD_LIMIT=1');
    expect(seen?.args.join(' ')).toContain('--jobs 1');
    expect(await toolsLeftAtWork(ctx.server.dataDir)).toEqual([]);
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  });
});
