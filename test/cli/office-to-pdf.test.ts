// `pdn office-to-pdf` against the real server, as the built binary: documents written by Word and
// Excel converted to `<name>.pdf` in the folder asked, an option outside the contract refused before
// sending (exit 2), and a server without LibreOffice answered 501: the batch stops, exit 5.
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OFFICE_ASSETS } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageCount } from '../src/harness/download.js';
import { missing } from '../src/harness/tools.js';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const DOCUMENTS = ['word-2007-sample.docx', 'excel-97-sample.xls'];

describe.skipIf(missing('libreoffice', 'pdn office-to-pdf conversions (the 501 path is tested either way)'))(
  'pdn office-to-pdf',
  () => {
    const ctx = useServer();
    const ws = useWorkspace();
    let key: string;
    const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

    beforeAll(async () => {
      key = await ctx.server.createKey({ user: 'cli-office', plan: 'premium' });
      for (const name of DOCUMENTS) await ws.file(`docs/${name}`, await readFile(join(OFFICE_ASSETS, name)));
    });

    it('converts each document to <name>.pdf in the folder asked', async () => {
      const run = await pdn([
        'office-to-pdf',
        'docs/word-2007-sample.docx',
        'docs/excel-97-sample.xls',
        '-o',
        'pdfs/',
      ]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.text).toMatch(/→ pdfs\/word-2007-sample\.pdf +2 pages/);
      expect(await pageCount(await readFile(ws.path('pdfs/word-2007-sample.pdf')))).toBe(2);
      expect(await pageCount(await readFile(ws.path('pdfs/excel-97-sample.pdf')))).toBeGreaterThanOrEqual(2);
    }, 120_000);

    it('refuses a PDF/A level the contract does not take before sending, with exit 2', async () => {
      const run = await pdn(['office-to-pdf', 'docs/word-2007-sample.docx', '--pdfa', 'pdfa-4']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/pdfa-4/);
    });
  },
);

describe('pdn office-to-pdf against a server without LibreOffice', () => {
  // A PATH holding only prlimit, which OCR needs to start: the server finds no other tool, LibreOffice
  // among them.
  const bin = mkdtempSync(join(tmpdir(), 'pdn-e2e-path-'));
  const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));
  if (prlimit !== undefined) symlinkSync(prlimit, join(bin, 'prlimit'));
  const ctx = useServer({ env: { PATH: bin } });
  afterAll(() => rm(bin, { recursive: true, force: true }));
  const ws = useWorkspace();
  let key: string;
  const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'cli-no-office', plan: 'premium' });
    for (const name of DOCUMENTS) await ws.file(`docs/${name}`, await readFile(join(OFFICE_ASSETS, name)));
  });

  it('exits 5, saying LibreOffice is missing', async () => {
    const run = await pdn([
      'office-to-pdf',
      'docs/word-2007-sample.docx',
      'docs/excel-97-sample.xls',
      '--json',
    ]);
    expect(run.code).toBe(5);
    expect(run.text).toMatch(/converter_unavailable/);
    expect(run.text).toMatch(/Office to PDF needs LibreOffice/);
  });
});
