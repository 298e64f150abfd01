// `pdn images-to-pdf` against the real server, as the built binary: images written by other software
// made one PDF in the order given with the layout options, `--async` collected by `pdn jobs wait -o`,
// and an option outside the contract refused before sending (exit 2).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGE_ASSETS, TWO_PAGE_TIFF } from '@pdn/fixtures';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { pageCount } from '../src/harness/download.js';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const TEXT = join(IMAGE_ASSETS, 'text');

describe('pdn images-to-pdf', () => {
  const ctx = useServer();
  const ws = useWorkspace();
  let key: string;
  const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'cli-images', plan: 'premium' });
    for (const name of ['eng-progressive.jpg', 'eng-rle8.bmp', TWO_PAGE_TIFF])
      await ws.file(`scans/${name}`, await readFile(join(TEXT, name)));
  });

  it('writes one PDF of the images, a page each in the order given, on the paper asked', async () => {
    const run = await pdn([
      'images-to-pdf',
      'scans/eng-progressive.jpg',
      `scans/${TWO_PAGE_TIFF}`,
      'scans/eng-rle8.bmp',
      '--page-size',
      'a4',
      '--margin',
      '10',
      '-o',
      'album.pdf',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).toMatch(/→ album\.pdf +4 pages/);
    const doc = await PDFDocument.load(await readFile(ws.path('album.pdf')));
    expect(doc.getPages().map((page) => Object.values(page.getSize()).map(Math.round))).toEqual([
      [842, 595],
      [842, 595],
      [842, 595],
      [842, 595],
    ]);
  });

  it('submits with --async and saves the PDF with pdn jobs wait -o', async () => {
    const submitted = await pdn(['images-to-pdf', 'scans/eng-rle8.bmp', '--async', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const jobId = (jsonOf(submitted).results[0] as { job_id?: string }).job_id ?? '';
    const waited = await pdn(['jobs', 'wait', jobId, '-o', 'out']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(await pageCount(await readFile(ws.path('out/eng-rle8.pdf')))).toBe(1);
  });

  it('refuses a margin the contract does not take before sending, with exit 2', async () => {
    const run = await pdn(['images-to-pdf', 'scans/eng-rle8.bmp', '--margin', '80', '-o', 'x.pdf']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/marginMm must be a number from 0 to 50/);
  });
});
