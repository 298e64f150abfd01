// OCR of documents through the SDK against the real server: `pdn.ocrPdf` on a generated
// multi-page scan, synchronously and as a job whose progress in pages is seen while it runs (looked at
// every 20 ms), the two results alike; both downloads (the PDF, and the text served as text/plain);
// `pdn.ocr` with `detail: 'words'`. On the server's default engine only: the SDK sends and reads the
// same fields whichever engine reads the pages (ocr-pdf.test.ts runs the route on each engine, and the
// engines' own tests check each reports its progress page by page). Every response the SDK sees is
// validated against the contract (checked fetch).
import { ocrSample, scannedDocumentPdf } from '@pdn/fixtures';
import { type Job, Pdn } from '@pdn/sdk';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CheckedFetch, checkedFetch } from './contract/checked-fetch.js';
import { pageCount } from './harness/download.js';
import { cannotOcrDocuments, ocrPdfEngines } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const SLOW = { timeout: 240_000 };

const ctx = useServer();
let checked: CheckedFetch;
let pdn: Pdn;

beforeAll(async () => {
  checked = checkedFetch();
  const apiKey = await ctx.server.createKey({ user: 'sdk-ocr-pdf', plan: 'premium' });
  pdn = new Pdn({ apiKey, baseUrl: ctx.server.baseUrl, fetch: checked.fetch });
});

afterEach(() => checked.assertConforms());

describe.skipIf(cannotOcrDocuments('the SDK OCR-of-documents tests'))('pdn.ocrPdf', () => {
  it('reads a scan synchronously and as a job, progress in pages seen while it runs', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 3, seed: 31, blocks: 2 });
    const file = new File([scan.bytes], 'letter.pdf', { type: 'application/pdf' });
    const synchronous = await pdn.ocrPdf({ file, language: 'eng', pages: ['1-3'] });
    expect(synchronous).toMatchObject({
      filename: 'letter.ocr.pdf',
      text_filename: 'letter.ocr.txt',
      page_count: 3,
      pages_ocred: 3,
      pages_skipped: 0,
      output: 'pdf',
    });
    expect(ocrPdfEngines).toContain(synchronous.method);

    const job: Job<'ocr_pdf'> = await pdn.jobs.submit('ocr_pdf', { file, language: 'eng', pages: ['1-3'] });
    expect(job).toMatchObject({ operation: 'ocr_pdf', status: 'queued' });
    // Looked at every 20 ms while it runs: the SDK's own wait holds each look for the second the server
    // suggests, which a 3-page job on a quiet machine outlasts (0.8 s measured), so it may never
    // see the job running with its progress.
    const seen: Job[] = [];
    for (let now = await pdn.jobs.get(job.id); ; now = await pdn.jobs.get(job.id)) {
      seen.push(now);
      if (now.status !== 'queued' && now.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const running = seen.filter((j) => j.status === 'running' && j.progress !== undefined);
    expect(running.length, JSON.stringify(seen)).toBeGreaterThan(0);
    for (const j of running) expect(j.progress?.total).toBe(3);
    const waited: Job[] = [];
    const result = await job.wait({ onProgress: (j) => waited.push(j) });
    expect(waited.map((j) => j.status)).toEqual(['succeeded']);

    // The job's result is the synchronous answer: same fields, same reading.
    expect(Object.keys(result).sort()).toEqual(Object.keys(synchronous).sort());
    const { download: _a, text_download: _b, size: _c, pages: jobPages, ...jobRest } = result;
    const { download: _d, text_download: _e, size: _f, pages: syncPages, ...syncRest } = synchronous;
    expect(jobRest).toEqual(syncRest);
    expect(jobPages.map((p) => p.status)).toEqual(syncPages.map((p) => p.status));
  });

  it('downloads both outputs: the searchable PDF and its text', SLOW, async () => {
    const scan = await scannedDocumentPdf({ pages: 2, seed: 32, blocks: 1 });
    const result = await pdn.ocrPdf({ file: scan.bytes, mode: 'force' });
    expect(result.filename).toBe('document.ocr.pdf');
    expect(await pageCount(await pdn.download(result.download))).toBe(2);
    const text = new TextDecoder().decode(await pdn.download(result.text_download));
    expect(text).toBe(result.text);
    expect(text.split('\f')).toHaveLength(2);
    const served = await fetch(pdn.downloadUrl(result.text_download));
    expect(served.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    await served.arrayBuffer();
  });
});

describe('pdn.ocr with detail', () => {
  it("detail: 'words' adds every word with its box; the default answer has none", SLOW, async () => {
    const sample = await ocrSample('eng', 'png');
    const words = await pdn.ocr({ image: sample.bytes, detail: 'words' });
    expect(words.words.length).toBeGreaterThan(3);
    for (const word of words.words) expect(words.text).toContain(word.text);
    for (const word of words.words) expect(word).toMatchObject({ page: 1, width: expect.any(Number) });
    const plain = await pdn.ocr({ image: sample.bytes });
    expect(plain.words).toBeUndefined();
    expect(plain.text).toBe(words.text);
  });
});
