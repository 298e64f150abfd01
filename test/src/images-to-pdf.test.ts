// Images to PDF over HTTP: images written by other software (the fixtures' re-encodings of the English
// sample) made one PDF in upload order, a JPEG kept byte for byte, paper sizes, the form fields and
// hostile or over-budget images refused with 400 naming the file or the plan's budget, and the same
// operation as a job. Every answer is checked against the contract.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImagesToPdfResponse, ImagesToPdfResult } from '@pdn/api-types';
import { garbageImage, IMAGE_ASSETS, TWO_PAGE_TIFF } from '@pdn/fixtures';
import { PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { download, pageCount } from './harness/download.js';
import { field, form, type Part } from './harness/form.js';
import { submitJob, waitForJob } from './harness/jobs.js';
import { qpdfCheck } from './harness/qpdf-check.js';
import { useServer } from './harness/use-server.js';

const TEXT = join(IMAGE_ASSETS, 'text');
const IMAGES = ['eng-progressive.jpg', 'eng-rgb16.png', TWO_PAGE_TIFF, 'eng-alpha.webp', 'eng-rle8.bmp'];

async function image(name: string): Promise<Part> {
  return { name: 'images[]', file: await readFile(join(TEXT, name)), filename: name, type: 'image/*' };
}

/** The bytes of every DCTDecode image of `pdf`. */
async function jpegStreams(pdf: Uint8Array): Promise<Buffer[]> {
  const doc = await PDFDocument.load(pdf);
  return doc.context
    .enumerateIndirectObjects()
    .flatMap(([, object]) =>
      object instanceof PDFRawStream && String(object.dict.get(PDFName.of('Filter'))) === '/DCTDecode'
        ? [Buffer.from(object.contents)]
        : [],
    );
}

describe('images to PDF', () => {
  const ctx = useServer();
  let free: string;

  beforeAll(async () => {
    free = await ctx.server.createKey({ user: 'album', plan: 'free' });
  });

  const imagesToPdf = (...parts: Part[]) =>
    ctx.call<ImagesToPdfResponse & { error: { code: string; message: string } }>('/api/v1/images-to-pdf', {
      key: free,
      body: form(...parts),
    });

  it('makes one PDF of PNG, JPEG, TIFF, WebP and BMP images, a page each, the JPEG as uploaded', async () => {
    const res = await imagesToPdf(...(await Promise.all(IMAGES.map(image))));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({
      filename: 'eng-progressive.pdf',
      page_count: 6,
      input_count: 5,
      page_size: 'image',
    });
    const pdf = await download(ctx, res.json.data.download.url);
    expect(pdf.filename).toBe('eng-progressive.pdf');
    expect(pdf.bytes.length).toBe(res.json.data.size);
    expect(await pageCount(pdf.bytes)).toBe(6);
    expect((await qpdfCheck(pdf.bytes)).ok).toBe(true);
    expect(await jpegStreams(pdf.bytes)).toEqual([await readFile(join(TEXT, 'eng-progressive.jpg'))]);
  });

  it('lays images on paper with margins', async () => {
    const res = await imagesToPdf(
      await image('eng-exif6.jpg'),
      field('page_size', 'a4'),
      field('orientation', 'portrait'),
      field('fit', 'cover'),
      field('margin_mm', '12.5'),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const doc = await PDFDocument.load((await download(ctx, res.json.data.download.url)).bytes);
    const { width, height } = doc.getPage(0).getSize();
    expect([Math.round(width), Math.round(height)]).toEqual([595, 842]);
  });

  it.each([
    ['an unknown page size', [field('page_size', 'b5')], /`page_size` must be one of image, a3, a4/],
    [
      'a margin too wide',
      [field('margin_mm', '80')],
      /`margin_mm` must be a number of millimetres from 0 to 50/,
    ],
    ['no image', [], /1 to 500 images in the repeated part `images\[\]`/],
  ])('refuses %s with 400', async (_, fields, message) => {
    const parts = fields.length === 0 ? [] : [await image('eng-rgb16.png'), ...fields];
    const res = await imagesToPdf(...(parts.length === 0 ? [field('fit', 'contain')] : parts));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_input');
    expect(res.json.error.message).toMatch(message);
  });

  it('refuses a damaged image naming it, and images over the plan budget naming the plan', async () => {
    const damaged = await imagesToPdf(await image('eng-rgb16.png'), {
      name: 'images[]',
      file: garbageImage(3),
      filename: 'broken.png',
    });
    expect(damaged.status).toBe(400);
    expect(damaged.json.error.message).toMatch(/image 2 \("broken.png"\) could not be read as a PNG image/);
    const many = await Promise.all(Array.from({ length: 21 }, () => image('eng-rgb16.png')));
    const over = await imagesToPdf(...many);
    expect(over.status).toBe(400);
    expect(over.json.error.message).toBe(
      'The 21 images hold 21 pages in all; the Free plan allows at most 20 images per request. Send fewer images per request.',
    );
  });

  it('runs as a job with Prefer: respond-async', async () => {
    const job = await submitJob(
      ctx,
      free,
      '/api/v1/images-to-pdf',
      form(await image(TWO_PAGE_TIFF), field('page_size', 'letter')),
    );
    expect(job.operation).toBe('images_to_pdf');
    const done = await waitForJob(ctx, free, job.id);
    expect(done.status).toBe('succeeded');
    const result = done.result as ImagesToPdfResult;
    expect(result).toMatchObject({ filename: 'eng-deu-2pages.pdf', page_count: 2, page_size: 'letter' });
    expect(await pageCount((await download(ctx, result.download.url)).bytes)).toBe(2);
  });
});
