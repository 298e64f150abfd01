// `pdn ocr-pdf` end to end with the real OCR tools: a scan made searchable beside its
// input with its text (`--text`), a batch into a folder leaving last run's outputs out, `--async`
// collected by `pdn jobs wait -o` (both outputs), `--resume` with nothing left to resume, and at a
// terminal the spinner counting pages. Skipped, saying why, where the server cannot OCR documents.
import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { characterErrorRate, scannedDocumentPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { cannotOcrDocuments, tools } from '../src/harness/tools.js';
import { useServer } from '../src/harness/use-server.js';
import { hasScript, pdnInTerminal } from './run-in-terminal.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const SLOW = { timeout: 240_000 };
/** As the server's own suite (test/src/ocr-pdf.test.ts): generated 200 dpi scans read under 5%. */
const MAX_CER = 0.05;

describe.skipIf(cannotOcrDocuments('the `pdn ocr-pdf` tests'))('pdn ocr-pdf', () => {
  const ctx = useServer();
  const ws = useWorkspace();
  let key: string;
  const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'cli-ocr-pdf', plan: 'enterprise' });
  });

  it('writes <name>.ocr.pdf beside the scan and, with --text, its text', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 2, seed: 41, blocks: 2 });
    await ws.file('one/letter.pdf', scan.bytes);
    const run = await pdn(['ocr-pdf', 'one/letter.pdf', '--text', '--language', 'eng', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const [item] = jsonOf(run).results;
    expect(item?.data).toMatchObject({ filename: 'letter.ocr.pdf', page_count: 2, pages_ocred: 2 });
    expect((item as { job_id?: string }).job_id).toMatch(/^job_/);
    expect(item?.outputs).toEqual([
      { kind: 'file', path: 'one/letter.ocr.pdf', bytes: expect.any(Number) },
      { kind: 'file', path: 'one/letter.ocr.txt', bytes: expect.any(Number) },
    ]);
    const text = await readFile(ws.path('one/letter.ocr.txt'), 'utf8');
    expect(text).toBe(item?.data?.text);
    expect(characterErrorRate(scan.pageTexts.join('\f'), text)).toBeLessThan(MAX_CER);
    if (tools.pdftotext) {
      const searchable = execFileSync('pdftotext', ['-enc', 'UTF-8', ws.path('one/letter.ocr.pdf'), '-'], {
        encoding: 'utf8',
      });
      expect(characterErrorRate(scan.pageTexts.join('\f'), searchable)).toBeLessThan(MAX_CER);
    }
  });

  it('reads a batch into -o DIR, pages as asked, leaving last run’s outputs out', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 2, seed: 42, blocks: 1 });
    await ws.file('batch/a.pdf', scan.bytes);
    await ws.file('batch/b.pdf', scan.bytes);
    await ws.file('batch/a.ocr.pdf', scan.bytes);
    const run = await pdn([
      'ocr-pdf',
      'batch/a.pdf',
      'batch/b.pdf',
      'batch/a.ocr.pdf',
      '--pages',
      '2',
      '-o',
      'searchable',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const report = jsonOf(run);
    expect(report.summary).toMatchObject({ total: 3, succeeded: 2, skipped: 1 });
    expect(report.results[2]).toMatchObject({ status: 'skipped', skip_reason: 'pdn_output' });
    for (const item of report.results.slice(0, 2)) {
      expect(item.data).toMatchObject({ pages_ocred: 1, pages_skipped: 1 });
    }
    expect((await readdir(ws.path('searchable'))).sort()).toEqual(['a.ocr.pdf', 'b.ocr.pdf']);

    // Human output: one line per file with its pages; run again, the outputs exist and are kept.
    const again = await pdn(['ocr-pdf', 'batch/a.pdf', '-o', 'searchable', '--skip-existing']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toMatch(/skipped/);
  });

  it(
    '--async submits; pdn jobs wait -o collects the PDF and the text under the server’s names',
    SLOW,
    async () => {
      const scan = await scannedDocumentPdf({ pages: 1, seed: 43, blocks: 1 });
      await ws.file('async/memo.pdf', scan.bytes);
      const submitted = await pdn(['ocr-pdf', 'async/memo.pdf', '--async', '--json']);
      expect(submitted.code, submitted.stderr).toBe(0);
      const [item] = jsonOf(submitted).results;
      expect(item?.data).toMatchObject({ operation: 'ocr_pdf' });
      const id = (item as { job_id?: string }).job_id ?? '';
      const waited = await pdn(['jobs', 'wait', id, '-o', 'collected', '--json']);
      expect(waited.code, waited.stderr).toBe(0);
      expect(jsonOf(waited).results[0]?.outputs).toEqual([
        { kind: 'file', path: 'collected/memo.ocr.pdf', bytes: expect.any(Number) },
        { kind: 'file', path: 'collected/memo.ocr.txt', bytes: expect.any(Number) },
      ]);
    },
  );

  it('--resume with no interrupted run simply runs, and leaves no run-state file', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 1, seed: 44, blocks: 1 });
    await ws.file('resume/page.pdf', scan.bytes);
    const run = await pdn(['ocr-pdf', 'resume/page.pdf', '-o', 'resumed/', '--resume']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('no interrupted run');
    expect(await readdir(ws.path('resumed'))).toEqual(['page.ocr.pdf']);
  });

  it('refuses --text with -o - before sending anything (exit 2)', async () => {
    await ws.file('usage/x.pdf', (await scannedDocumentPdf({ pages: 1, seed: 45, blocks: 1 })).bytes);
    const run = await pdn(['ocr-pdf', 'usage/x.pdf', '--text', '-o', '-']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--text writes a file beside the PDF');
  });

  it.runIf(hasScript)('at a terminal, the spinner counts pages', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 3, seed: 46, blocks: 3 });
    await ws.file('tty/long.pdf', scan.bytes);
    const terminal = pdnInTerminal(['ocr-pdf', 'tty/long.pdf', '-o', 'tty-out/'], {
      cwd: ws.dir,
      env: { PDN_API_KEY: key, PDN_BASE_URL: ctx.server.baseUrl, XDG_CONFIG_HOME: ws.configHome },
    });
    await terminal.waitFor(/reading \d\/3 pages of/, 120_000);
    const { code, screen } = await terminal.done;
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/✔ tty\/long\.pdf → tty-out\/long\.ocr\.pdf {2}3 pages \(3 read, 0 skipped\)/);
  });
});
