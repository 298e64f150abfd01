// Office to PDF over HTTP: documents written by Word, Excel, PowerPoint, LibreOffice and OpenOffice
// (the fixtures' assets/office, with their sources) made PDFs that keep their text (a text document's
// against LibreOffice's own text export of it, sheets and slides every one a page with known strings),
// the options (pages, landscape, PDF/A, PDF/UA, bookmarks), hostile documents (an auto-run macro, links
// and formulas that fetch, a zip bomb, a sheet of billions of cells) refused or defused with
// LibreOffice killed, nothing of one conversion in the next, the operation as a job, and, on a server
// without LibreOffice, 501 converter_unavailable with /healthz saying so. Every answer is checked
// against the contract.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ErrorResponse, HealthResponse, OfficeToPdfResponse, OfficeToPdfResult } from '@pdn/api-types';
import {
  autoRunMacroOdt,
  billionCellOds,
  characterErrorRate,
  entityBombOdt,
  fontOdt,
  nestedObjectsOdt,
  OFFICE_ASSETS,
  OFFICE_SAMPLES,
  remoteFormulasOds,
  remoteResourcesOdt,
  zipBombDocx,
} from '@pdn/fixtures';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download } from './harness/download.js';
import { field, form, type Part } from './harness/form.js';
import { submitJob, waitForJob } from './harness/jobs.js';
import { processesMentioning } from './harness/processes.js';
import { qpdfCheck } from './harness/qpdf-check.js';
import { missing } from './harness/tools.js';
import { until } from './harness/until.js';
import { useServer } from './harness/use-server.js';

type Answer = OfficeToPdfResponse & ErrorResponse;

const noOffice = missing('libreoffice', 'Office to PDF conversions (the 501 path is tested either way)');

function document(name: string, bytes: Uint8Array): Part {
  return { name: 'file', file: bytes, filename: name, type: 'application/octet-stream' };
}

async function sample(name: string): Promise<Part> {
  return document(name, await readFile(join(OFFICE_ASSETS, name)));
}

function pdfText(pdf: Uint8Array): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', '-layout', '-', '-'], { input: pdf, encoding: 'utf8' });
}

/** Collapsed whitespace, so that line breaks and layout columns do not decide a comparison. */
function words(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** LibreOffice's own text export of `path`, with a profile of its own, the reference for a text document's PDF. */
async function libreOfficeText(path: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-office-text-'));
  try {
    execFileSync(
      'soffice',
      [
        '--headless',
        `-env:UserInstallation=file://${dir}/profile`,
        '--convert-to',
        'txt:Text (encoded):UTF8',
        '--outdir',
        dir,
        path,
      ],
      { stdio: 'ignore', timeout: 120_000, env: { ...process.env, HOME: dir } },
    );
    const name =
      path
        .split('/')
        .pop()
        ?.replace(/\.[^.]+$/, '.txt') ?? '';
    return await readFile(join(dir, name), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The names of the fonts a PDF's pages use. */
function fontNames(pdf: Uint8Array): string {
  return execFileSync('pdffonts', ['-'], { input: pdf, encoding: 'utf8' });
}

describe.skipIf(noOffice)('Office to PDF with LibreOffice', () => {
  const ctx = useServer();
  let free: string;
  let premium: string;

  beforeAll(async () => {
    free = await ctx.server.createKey({ user: 'office-free', plan: 'free' });
    premium = await ctx.server.createKey({ user: 'office-premium', plan: 'premium' });
  });

  const convert = (key: string, ...parts: Part[]) =>
    ctx.call<Answer>('/api/v1/office-to-pdf', { key, body: form(...parts) });

  /** LibreOffice processes of this server still running: those whose profile is in its data folder. */
  const runningOffices = async () =>
    (await processesMentioning(ctx.server.dataDir)).filter((line) => line.includes('soffice.bin'));

  it('says on /healthz that LibreOffice is there, with its version', async () => {
    const res = await ctx.call<HealthResponse>('/healthz');
    expect(res.json.data.converters.office).toMatchObject({ available: true, tool: 'libreoffice' });
    expect(res.json.data.converters.office.version).toMatch(/^\d+\.\d+/);
  });

  it.each(OFFICE_SAMPLES.map((entry) => [entry.file, entry] as const))(
    'converts %s, every page and its text kept',
    async (file, entry) => {
      const res = await convert(premium, await sample(file));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.data).toMatchObject({ format: entry.format, pdfa: null });
      expect(res.json.data.filename).toBe(file.replace(/\.[^.]+$/, '.pdf'));
      const pdf = await download(ctx, res.json.data.download.url);
      expect(pdf.bytes.length).toBe(res.json.data.size);
      expect((await qpdfCheck(pdf.bytes)).ok).toBe(true);
      if (entry.kind === 'slides') expect(res.json.data.page_count).toBe(entry.pages);
      else expect(res.json.data.page_count).toBeGreaterThanOrEqual(entry.pages);
      const text = words(pdfText(pdf.bytes));
      for (const expected of entry.strings) expect(text).toContain(expected);
      if (entry.kind === 'text') {
        const reference = words(await libreOfficeText(join(OFFICE_ASSETS, file)));
        expect(characterErrorRate(reference, text)).toBeLessThan(0.05);
      }
    },
    180_000,
  );

  it('writes the pages asked for, in landscape', async () => {
    const res = await convert(
      premium,
      await sample('word-2007-sample.docx'),
      field('pages', '2'),
      field('landscape', 'true'),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.page_count).toBe(1);
    const pdf = await download(ctx, res.json.data.download.url);
    expect(words(pdfText(pdf.bytes))).toContain('This is page two');
    const page = (await PDFDocument.load(pdf.bytes)).getPage(0).getSize();
    expect(page.width).toBeGreaterThan(page.height);
  });

  it('writes PDF/A-2b and PDF/UA as asked, and keeps headings as bookmarks unless told not to', async () => {
    const asked = await convert(
      premium,
      await sample('libreoffice-3.6-headings.odt'),
      field('pdfa', 'pdfa-2b'),
      field('pdfua', 'true'),
    );
    expect(asked.status, JSON.stringify(asked.json)).toBe(200);
    expect(asked.json.data.pdfa).toBe('pdfa-2b');
    const pdf = await download(ctx, asked.json.data.download.url);
    const xmp = Buffer.from(pdf.bytes).toString('latin1');
    expect(xmp).toMatch(/pdfaid:part[>="]+2/);
    expect(xmp).toMatch(/pdfuaid:part[>="]+1/);
    const doc = await PDFDocument.load(pdf.bytes);
    expect(doc.catalog.get(PDFName.of('Outlines'))).toBeDefined();
    expect(doc.catalog.get(PDFName.of('MarkInfo'))).toBeDefined();

    const plain = await convert(
      premium,
      await sample('libreoffice-3.6-headings.odt'),
      field('bookmarks', 'false'),
    );
    expect(plain.status, JSON.stringify(plain.json)).toBe(200);
    const plainDoc = await PDFDocument.load((await download(ctx, plain.json.data.download.url)).bytes);
    expect(plainDoc.catalog.get(PDFName.of('Outlines'))).toBeUndefined();
  });

  it.each([
    [
      'a PDF',
      () => readFile(join(OFFICE_ASSETS, '..', 'encrypted.pdf')),
      /is not a Word, Excel or PowerPoint document/,
    ],
    [
      'an ODF package of another kind',
      async () => Buffer.from('PK\x03\x04garbage'),
      /could not be read as an Office document/,
    ],
  ])('refuses %s with 400 naming the file', async (_name, bytes, message) => {
    const res = await convert(premium, document('upload.docx', new Uint8Array(await bytes())));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_input');
    expect(res.json.error.message).toMatch(/"upload.docx"/);
    expect(res.json.error.message).toMatch(message);
  });

  it('refuses an XML entity bomb ("billion laughs") as unreadable, quickly', async () => {
    const res = await convert(free, document('laughs.odt', entityBombOdt()));
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.error.message).toMatch(/^"laughs.odt" could not be read as an ODT document/);
  });

  it('converts 1,365 embedded documents six levels deep, and refuses 60 levels with 400', async () => {
    const wide = await convert(premium, document('wide.odt', nestedObjectsOdt(6, 4)));
    expect(wide.status, JSON.stringify(wide.json)).toBe(200);
    // Each object is drawn from the document inside it (the file carries no picture of it).
    expect(words(pdfText((await download(ctx, wide.json.data.download.url)).bytes))).toContain('level 1');
    const deep = await convert(premium, document('deep.odt', nestedObjectsOdt(60)));
    expect(deep.status, JSON.stringify(deep.json)).toBe(400);
    // Refused as the document's doing, whichever way LibreOffice gives up on it.
    expect(deep.json.error.code).toBe('invalid_input');
    expect(deep.json.error.message).toMatch(/"deep.odt"/);
  }, 120_000);

  it.each([
    ['pdfa', 'pdfa-4', /`pdfa` must be one of pdfa-1b, pdfa-2b, pdfa-3b/],
    ['landscape', 'yes', /`landscape` must be one of true, false/],
    ['pages', '3-1', /Invalid page range "3-1"/],
  ])('refuses %s=%s with 400', async (name, value, message) => {
    const res = await convert(premium, await sample('word-2007-sample.docx'), field(name, value));
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(message);
  });

  it('refuses pages the document does not have, saying how many it has', async () => {
    const res = await convert(premium, await sample('powerpoint-2016-sample.pptx'), field('pages', '5-9'));
    expect(res.status, JSON.stringify(res.json)).toBe(400);
    expect(res.json.error.message).toBe(
      '`pages` (5-9) names no page of "powerpoint-2016-sample.pptx": it has 2 pages.',
    );
  });

  it('runs as a job with Prefer: respond-async', async () => {
    const job = await submitJob(
      ctx,
      premium,
      '/api/v1/office-to-pdf',
      form(await sample('powerpoint-2016-sample.pptx')),
    );
    expect(job.operation).toBe('office_to_pdf');
    const done = await waitForJob(ctx, premium, job.id);
    expect(done.status).toBe('succeeded');
    const result = done.result as OfficeToPdfResult;
    expect(result).toMatchObject({ format: 'pptx', page_count: 2 });
  });

  it('never runs a macro of the document', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-macro-'));
    const marker = join(dir, 'macro-ran');
    try {
      const res = await convert(premium, document('macro.odt', autoRunMacroOdt(marker)));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      const text = words(pdfText((await download(ctx, res.json.data.download.url)).bytes));
      expect(text).toContain('This document runs a macro when it is opened.');
      expect(existsSync(marker)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('documents that would fetch from another server', () => {
    let listener: Server;
    let baseUrl: string;
    const asked: string[] = [];

    beforeAll(async () => {
      listener = createServer((req, res) => {
        asked.push(`${req.method} ${req.url}`);
        res.end('fetched');
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

    it.each([
      ['a linked image and section', 'links.odt', () => remoteResourcesOdt(baseUrl)],
      ['WEBSERVICE() formulas and an external reference', 'formulas.ods', () => remoteFormulasOds(baseUrl)],
    ])('converts %s without fetching anything', async (_name, filename, make) => {
      const res = await convert(premium, document(filename, make()));
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(asked).toEqual([]);
    });
  });

  it('lets nothing of one document reach the next: a font it carried is not there for the next', async () => {
    const codicon = join(
      process.cwd(),
      '..',
      'node_modules/playwright-core/lib/vite/recorder/assets/codicon-DCmgc-ay.ttf',
    );
    const font = new Uint8Array(await readFile(codicon));
    const icons = '\uea60\uea61\uea62';
    const carrying = await convert(premium, document('carries.odt', fontOdt('codicon', icons, font)));
    expect(carrying.status, JSON.stringify(carrying.json)).toBe(200);
    expect(fontNames((await download(ctx, carrying.json.data.download.url)).bytes)).toMatch(/codicon/i);
    const next = await convert(premium, document('names.odt', fontOdt('codicon', icons)));
    expect(next.status, JSON.stringify(next.json)).toBe(200);
    expect(fontNames((await download(ctx, next.json.data.download.url)).bytes)).not.toMatch(/codicon/i);
  });

  it.each([
    ['a zip bomb', 'bomb.docx', () => zipBombDocx()],
    ['a sheet of billions of cells', 'huge.ods', () => billionCellOds()],
  ])(
    'stops %s within the Free plan budget with 400, LibreOffice killed',
    async (_name, filename, make) => {
      const res = await convert(free, document(filename, make()));
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      expect(res.json.error.code).toBe('invalid_input');
      expect(res.json.error.message).toMatch(
        /the Free plan's (time|memory) for a conversion|the Free plan allows at most \d+ pages per conversion/,
      );
      await until(
        'the LibreOffice that converted it is gone',
        async () => (await runningOffices()).length === 0,
        10_000,
      );
      const next = await convert(free, await sample('word-2007-sample.docx'));
      expect(next.status, JSON.stringify(next.json)).toBe(200);
    },
    120_000,
  );
});

describe('Office to PDF on a server without LibreOffice', () => {
  // A PATH holding only prlimit, which OCR needs to start: the server finds no other tool, LibreOffice
  // among them.
  const bin = mkdtempSync(join(tmpdir(), 'pdn-e2e-path-'));
  const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));
  if (prlimit !== undefined) symlinkSync(prlimit, join(bin, 'prlimit'));
  const ctx = useServer({ env: { PATH: bin } });
  afterAll(() => rm(bin, { recursive: true, force: true }));

  it('says so on /healthz and answers 501 converter_unavailable naming LibreOffice', async () => {
    const health = await ctx.call<HealthResponse>('/healthz');
    expect(health.json.data.converters.office).toEqual({
      available: false,
      tool: 'libreoffice',
      version: null,
    });
    const key = await ctx.server.createKey({ user: 'no-office', plan: 'premium' });
    const res = await ctx.call<Answer>('/api/v1/office-to-pdf', {
      key,
      body: form(await sample('word-2007-sample.docx')),
    });
    expect(res.status).toBe(501);
    expect(res.json.error.code).toBe('converter_unavailable');
    expect(res.json.error.message).toMatch(/^Office to PDF needs LibreOffice/);
    expect(res.json.error.message).toMatch(/GET \/healthz lists the converters it has/);
  });
});
