// HTTP behaviour the end-to-end suites cannot provoke or see from outside: a genuine server fault
// becoming a generic 500 envelope with its cause in the log only, and `Expect: 100-continue` (which
// fetch never sends) being refused before the body is sent. Real parts throughout: SQLite, storage on
// disk, the pdf-lib engine (no external tool needed), a real listener on port 0.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PasswordHasher } from '../accounts/index.js';
import { Admission } from '../admission/admission.js';
import { QueueWait } from '../admission/queue-wait.js';
import { SyncCalls } from '../admission/sync-calls.js';
import { loadConfig } from '../config.js';
import { openSqliteForTest } from '../database/contract-harness.js';
import { createCompressEngine } from '../engines/compress/index.js';
import { convertersOf } from '../engines/converters.js';
import { CpuSlots } from '../engines/cpu-slots.js';
import { createHtmlPdfEngine } from '../engines/html-pdf/index.js';
import { createImagesPdfEngine } from '../engines/images-pdf/index.js';
import { createOcrEngine } from '../engines/ocr/index.js';
import { createOcrPdfEngine } from '../engines/ocr-pdf/index.js';
import { createOfficePdfEngine } from '../engines/office-pdf/index.js';
import { createPdfEngine } from '../engines/pdf/index.js';
import { createPdfImagesEngine } from '../engines/pdf-images/index.js';
import { tempFolders } from '../engines/temp-folders.js';
import { detectTools } from '../engines/tools.js';
import type { OcrEngine } from '../engines/types.js';
import { IdempotencyKeys } from '../idempotency/idempotency-keys.js';
import type { JobRuns } from '../jobs/job-runs.js';
import { LocalJobQueue } from '../jobs/local-job-queue.js';
import { type OpenedJobs, openJobs } from '../jobs/open-jobs.js';
import { createLogger } from '../logger.js';
import { createOperations } from '../operations/index.js';
import { partsOf } from '../role.js';
import { openStorage, type Storage } from '../storage/index.js';
import { createApp } from './app.js';
import { Drain } from './drain.js';
import { createHttpServer } from './http-server.js';

async function pdf(pages: number): Promise<Blob> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i += 1) doc.addPage([200, 200]);
  return new Blob([await doc.save()], { type: 'application/pdf' });
}

describe('createApp', () => {
  let dataDir: string;
  let accounts: ReturnType<typeof openSqliteForTest>;
  let storage: Storage;
  let ocr: OcrEngine;
  let opened: OpenedJobs;
  let server: Server;
  let base: string;
  let key: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'pdn-app-'));
    const config = loadConfig({
      PDN_DATA_DIR: dataDir,
      PDN_PDF_ENGINE: 'pdf-lib',
      PDN_COMPRESS_ENGINE: 'pdf-lib',
    });
    const log = createLogger('info', (line) => logLines.push(line));
    accounts = openSqliteForTest(dataDir);
    storage = await openStorage({ dataDir, signingSecret: undefined, log });
    const cpuSlots = new CpuSlots(1);
    const common = { tools: {}, cpuSlots, maxPages: 100, timeoutMs: 30_000, log };
    const { prlimit } = await detectTools();
    ocr = await createOcrEngine({
      choice: 'tesseract.js',
      // OCR bounds its processes' memory with prlimit; nothing else is needed here.
      tools: prlimit === undefined ? {} : { prlimit },
      native: undefined,
      cpuSlots,
      maxImagePixels: 1_000_000,
      memoryBytes: 1024 * 1024 * 1024,
      poolSize: 1,
      recycleAfter: 10,
      timeoutMs: 30_000,
      log,
    });
    const engines = {
      pdf: createPdfEngine({ ...common, choice: 'pdf-lib' }),
      compress: createCompressEngine({ ...common, choice: 'pdf-lib', folders: tempFolders }),
      ocr,
      // No tools: the operation answers what to install (engines/ocr-pdf/index.ts).
      ocrPdf: await createOcrPdfEngine({
        ...common,
        choice: 'auto',
        native: undefined,
        concurrency: 1,
        maxImagePixels: 1_000_000,
        memoryBytes: 1024 * 1024 * 1024,
      }),
      imagesPdf: createImagesPdfEngine({
        images: ocr.pages,
        cpuSlots,
        maxImagePixels: 1_000_000,
        memoryBytes: 1024 * 1024 * 1024,
      }),
      pdfImages: createPdfImagesEngine({
        ...common,
        maxImagePixels: 1_000_000,
        memoryBytes: 1024 * 1024 * 1024,
      }),
      // No Chromium: the operation answers 501 (engines/converters.ts).
      htmlPdf: createHtmlPdfEngine({ tools: {}, cpuSlots, folders: storage.workDirs, log }),
      // No LibreOffice: the operation answers 501 (engines/converters.ts).
      officePdf: createOfficePdfEngine({
        tools: {},
        cpuSlots,
        folders: storage.workDirs,
        maxMemoryBytes: 1024 * 1024 * 1024,
        timeoutMs: 30_000,
        log,
      }),
    };
    opened = await openJobs({
      store: accounts.jobs,
      inputs: storage.inputs,
      workDirs: storage.workDirs,
      downloads: storage.downloads,
      operations: createOperations(engines),
      parts: partsOf('all'),
      slots: 1,
      log,
      openQueue: (parts) => new LocalJobQueue({ ...parts, runs: parts.runs as JobRuns }),
    });
    const { jobs } = opened;
    const admission = new Admission({
      rateLimiter: accounts.rateLimiter,
      jobs: accounts.jobs,
      keys: new IdempotencyKeys({
        store: accounts.idempotency,
        jobs: accounts.jobs,
        waiters: jobs.waiters,
        waitMs: 1_000,
        log,
      }),
      syncCalls: new SyncCalls(),
      queueWait: new QueueWait({ store: accounts.jobs, capacity: () => jobs.queue.capacity() }),
      maxSyncWaitMs: config.maxSyncWaitMs,
      uploadLimits: config.uploadLimits,
    });
    const webhooks = { subscribe: async () => {} };
    server = createHttpServer(
      createApp({
        config,
        accounts,
        storage,
        engines,
        jobs,
        admission,
        webhooks,
        passwords: new PasswordHasher(),
        log,
        drain: new Drain(),
        tools: [],
        converters: convertersOf({}),
      }),
      log,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    key = (await accounts.keys.create((await accounts.users.ensure('ada', 'free')).user.id, 'test', '')).key;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await opened?.close(0);
    await ocr?.close();
    await storage?.close();
    await accounts?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers a server fault with a generic 500 envelope and logs the cause', async () => {
    // Pull the outputs folder away: storing the merged PDF fails in a way no client caused.
    await rm(join(dataDir, 'outputs'), { recursive: true, force: true });
    const form = new FormData();
    form.append('files[]', await pdf(1), 'a.pdf');
    form.append('files[]', await pdf(2), 'b.pdf');
    const res = await fetch(`${base}/api/v1/merge`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'X-Request-Id': 'fault-test-0001' },
      body: form,
    });
    const body = (await res.json()) as {
      error: { code: string; message: string };
      meta: { request_id: string };
    };

    expect(res.status).toBe(500);
    expect(body.error.code).toBe('internal_error');
    expect(body.error.message).toBe('The server hit an unexpected error; it is safe to retry with backoff.');
    expect(body.meta.request_id).toBe('fault-test-0001');
    expect(res.headers.get('x-request-id')).toBe('fault-test-0001');
    // An authenticated response, so the rate-limit headers are there even on a 500.
    expect(res.headers.get('x-ratelimit-remaining')).toBe('9');
    const logged = logLines.find(
      (line) => line.includes('request failed') && line.includes('fault-test-0001'),
    );
    expect(logged).toMatch(/"level":"error".*ENOENT/);
    expect(JSON.stringify(body)).not.toMatch(/ENOENT|outputs/);
    // The request's work folder goes too, fault or not: just after the answer, which does not wait.
    await vi.waitFor(async () => expect(await readdir(storage.workDirs.area)).toEqual([]), {
      timeout: 5_000,
    });
  });

  it('answers OCR of documents without its tools with a 500 and logs what to install', async () => {
    const form = new FormData();
    form.append('file', await pdf(1), 'scan.pdf');
    const res = await fetch(`${base}/api/v1/ocr/pdf`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'X-Request-Id': 'ocr-pdf-none-0001' },
      body: form,
    });
    expect(res.status).toBe(500);
    const logged = logLines.find(
      (line) => line.includes('ocr-pdf-none-0001') && line.includes('request failed'),
    );
    expect(logged).toMatch(/install OCRmyPDF, or tesseract with qpdf and poppler-utils/);
  });

  /** Sends headers with `Expect: 100-continue`, then the body only if the server says "continue". */
  function expectContinue(
    authorization: string,
    body: Buffer,
  ): Promise<{ status: number; continued: boolean }> {
    const boundary = 'pdn-unit-boundary';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n` +
          'Content-Type: application/pdf\r\n\r\n',
      ),
      body,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return new Promise((resolve, reject) => {
      let continued = false;
      const req = request(`${base}/api/v1/compress`, {
        method: 'POST',
        headers: {
          Authorization: authorization,
          Expect: '100-continue',
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(payload.length),
        },
      });
      req.on('continue', () => {
        continued = true;
        req.end(payload);
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, continued }));
        if (!continued) req.destroy();
      });
      req.on('error', (error) => {
        if (!continued) return;
        reject(error);
      });
      req.flushHeaders();
    });
  }

  it('refuses a bad key before the body of an Expect: 100-continue upload is sent', async () => {
    const result = await expectContinue(`Bearer pdn_test_${'0'.repeat(32)}`, Buffer.from('%PDF-1.7'));
    expect(result).toEqual({ status: 401, continued: false });
  });

  it('says "continue" to an Expect: 100-continue upload it accepts, and reads it', async () => {
    const premium = (
      await accounts.keys.create((await accounts.users.ensure('bea', 'premium')).user.id, 'test', '')
    ).key;
    const result = await expectContinue(`Bearer ${premium}`, Buffer.from('not a pdf at all'));
    // Read and refused by the engine on its bytes: proof the body arrived after "continue".
    expect(result).toEqual({ status: 400, continued: true });
  });
});
