// PDF to images over HTTP with the real pdftoppm: a corpus PDF's pages as one download each (served as
// image/png or image/jpeg) or one ZIP archive (application/zip), the form fields refused by name, and
// the plan's page and pixel budgets refused with 400 before anything is drawn; and as a job. Every
// answer is checked against the contract.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PdfToImagesResponse, PdfToImagesResult } from '@pdn/api-types';
import { beforeAll, describe, expect, it } from 'vitest';
import { download } from './harness/download.js';
import { field, file, form, type Part } from './harness/form.js';
import { submitJob, waitForJob } from './harness/jobs.js';
import { missing } from './harness/tools.js';
import { useServer } from './harness/use-server.js';

const CORPUS = new URL('../../packages/fixtures/corpus/', import.meta.url).pathname;

describe.skipIf(missing('pdftoppm', 'the PDF-to-images tests'))('PDF to images', () => {
  const ctx = useServer();
  let free: string;
  let rotated: Uint8Array;
  let sizes: Uint8Array;

  beforeAll(async () => {
    free = await ctx.server.createKey({ user: 'thumbnails', plan: 'free' });
    rotated = await readFile(join(CORPUS, 'distiller-rotation.pdf'));
    sizes = await readFile(join(CORPUS, 'openoffice-page-sizes.pdf'));
  });

  const pdfToImages = (...parts: Part[]) =>
    ctx.call<PdfToImagesResponse & { error: { code: string; message: string } }>('/api/v1/pdf-to-images', {
      key: free,
      body: form(...parts),
    });

  it('answers one PNG per page, each its own download', async () => {
    const res = await pdfToImages(file('file', rotated, 'memo.pdf'), field('dpi', '72'));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ format: 'png', output: 'files', page_count: 2 });
    const pages = res.json.data.pages;
    expect(pages.map(({ page, width, height, filename }) => ({ page, width, height, filename }))).toEqual([
      { page: 1, width: 612, height: 792, filename: 'memo.page-1.png' },
      { page: 2, width: 792, height: 612, filename: 'memo.page-2.png' },
    ]);
    const second = await ctx.call(pages[1]?.download?.url ?? '');
    expect(second.headers.get('content-type')).toBe('image/png');
    expect(second.bytes.length).toBe(pages[1]?.size);
  });

  it('ignores the defaults a form sends beside the fields that make them moot', async () => {
    // /docs sends `quality=85` and `dpi=150` with every call: beside a PNG and a width they mean nothing.
    const res = await pdfToImages(
      file('file', rotated, 'memo.pdf'),
      field('pages', '1'),
      field('quality', '85'),
      field('dpi', '150'),
      field('width', '100'),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data.pages[0]).toMatchObject({ width: 100, height: 130 });
  });

  it('answers JPEG thumbnails in one ZIP archive', async () => {
    const res = await pdfToImages(
      file('file', sizes, 'sizes.pdf'),
      field('pages', '2-3'),
      field('format', 'jpeg'),
      field('quality', '70'),
      field('width', '160'),
      field('output', 'zip'),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const data = res.json.data;
    expect(data).toMatchObject({ format: 'jpeg', output: 'zip', page_count: 2, filename: 'sizes.pages.zip' });
    expect(data.pages.every((page) => page.width === 160 && page.download === undefined)).toBe(true);
    const zip = await download(ctx, data.download?.url ?? '');
    expect(zip.filename).toBe('sizes.pages.zip');
    const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-zip-'));
    try {
      await writeFile(join(dir, 'pages.zip'), zip.bytes);
      const names = execFileSync('unzip', ['-Z1', join(dir, 'pages.zip')], { encoding: 'utf8' });
      expect(names.trim().split('\n')).toEqual(['sizes.page-2.jpg', 'sizes.page-3.jpg']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['an unknown format', [field('format', 'gif')], /`format` must be one of png, jpeg/],
    [
      'a quality out of range',
      [field('format', 'jpeg'), field('quality', '0')],
      /`quality` must be a whole number from 1 to 100/,
    ],
    [
      'a width that is not a number',
      [field('width', '10%')],
      /`width` must be a whole number from 16 to 10000/,
    ],
    ['a dpi out of range', [field('dpi', '5000')], /`dpi` must be a whole number from 10 to 1200/],
    ['a page past the end', [field('pages', '9')], /page 9 is past the end of the document/],
    [
      'a page over the plan’s pixels',
      [field('dpi', '1200')],
      /Page 1 of "memo.pdf" \(8.5 x 11.0-inch\) drawn at 1200 dpi is 10200x13200 pixels .* the Free plan allows images of at most 16,000,000 pixels/,
    ],
  ])('refuses %s with 400', async (_, fields, message) => {
    const res = await pdfToImages(file('file', rotated, 'memo.pdf'), ...fields);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_input');
    expect(res.json.error.message).toMatch(message);
  });

  it('runs as a job with Prefer: respond-async', async () => {
    const job = await submitJob(
      ctx,
      free,
      '/api/v1/pdf-to-images',
      form(file('file', rotated), field('pages', '2')),
    );
    expect(job.operation).toBe('pdf_to_images');
    const done = await waitForJob(ctx, free, job.id);
    expect(done.status).toBe('succeeded');
    const result = done.result as PdfToImagesResult;
    expect(result.pages.map((page) => page.page)).toEqual([2]);
    expect((await download(ctx, result.pages[0]?.download?.url ?? '')).bytes.length).toBe(
      result.pages[0]?.size,
    );
  });
});
