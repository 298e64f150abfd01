// Merge and split as the contract checks them, whichever processes answer: exact page
// counts and page order, checked on the downloaded documents through the labels the fixtures stamp on
// each page. Run embedded with each PDF engine (merge-split.test.ts) and on the distributed stack
// (stack-contract.test.ts).
import type { MergeResponse, SplitResponse } from '@pdn/api-types';
import { labelledPdf, pageLabels } from '@pdn/fixtures';
import { beforeAll, expect, it } from 'vitest';
import { download } from '../harness/download.js';
import { field, file, form } from '../harness/form.js';
import type { ServerContext } from '../harness/use-server.js';

/** `label-1` .. `label-n`. */
function labels(label: string, pages: number): string[] {
  return Array.from({ length: pages }, (_, i) => `${label}-${i + 1}`);
}

export function mergeSplitCases(ctx: ServerContext): void {
  let key: string;
  let book: Uint8Array;

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'merger', plan: 'enterprise' });
    book = await labelledPdf('book', 10);
  });

  it('merges in upload order with exact page counts', async () => {
    const inputs: [string, number][] = [
      ['A', 2],
      ['B', 3],
      ['C', 1],
    ];
    const files = await Promise.all(
      inputs.map(async ([label, pages]) => file('files[]', await labelledPdf(label, pages), `${label}.pdf`)),
    );
    const res = await ctx.call<MergeResponse>('/api/v1/merge', { key, body: form(...files) });
    expect(res.status).toBe(200);
    const data = res.json.data;
    expect(data).toMatchObject({ filename: 'merged.pdf', page_count: 6, input_count: 3 });
    const merged = await download(ctx, data.download.url);
    expect(merged.bytes.length).toBe(data.size);
    expect(merged.filename).toBe(data.filename);
    expect(await pageLabels(merged.bytes)).toEqual(inputs.flatMap(([label, pages]) => labels(label, pages)));
  });

  it('merges 20 files, the most allowed, and the same file twice', async () => {
    const twenty = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => file('files[]', await labelledPdf(`f${i}`, 1))),
    );
    const res = await ctx.call<MergeResponse>('/api/v1/merge', { key, body: form(...twenty) });
    expect(res.status).toBe(200);
    expect(res.json.data.input_count).toBe(20);
    const merged = await download(ctx, res.json.data.download.url);
    expect(await pageLabels(merged.bytes)).toEqual(Array.from({ length: 20 }, (_, i) => `f${i}-1`));

    const twice = await ctx.call<MergeResponse>('/api/v1/merge', {
      key,
      body: form(file('files[]', book, 'book.pdf'), file('files[]', book, 'book.pdf')),
    });
    expect(twice.status).toBe(200);
    expect(await pageLabels((await download(ctx, twice.json.data.download.url)).bytes)).toEqual([
      ...labels('book', 10),
      ...labels('book', 10),
    ]);
  });

  it('splits into one part per range, in the order given, whitespace allowed', async () => {
    const res = await ctx.call<SplitResponse>('/api/v1/split', {
      key,
      body: form(file('file', book, 'book.pdf'), field('ranges', ' 1-3, 5 ,7-10,2-2,10,4-6')),
    });
    expect(res.status).toBe(200);
    const parts = res.json.data.parts;
    expect(parts.map((part) => part.pages)).toEqual(['1-3', '5', '7-10', '2', '10', '4-6']);
    expect(parts.map((part) => part.page_count)).toEqual([3, 1, 4, 1, 1, 3]);
    expect(parts[0]?.filename).toBe('book.pages-1-3.pdf');
    const wanted = [
      ['book-1', 'book-2', 'book-3'],
      ['book-5'],
      ['book-7', 'book-8', 'book-9', 'book-10'],
      ['book-2'],
      ['book-10'],
      ['book-4', 'book-5', 'book-6'],
    ];
    for (const [i, part] of parts.entries()) {
      const got = await download(ctx, part.download.url);
      expect(got.bytes.length).toBe(part.size);
      expect(got.filename).toBe(part.filename);
      expect(await pageLabels(got.bytes)).toEqual(wanted[i]);
    }
  });

  it('accepts the most ranges allowed (100)', async () => {
    const ranges = Array.from({ length: 100 }, (_, i) => String((i % 10) + 1)).join(',');
    const res = await ctx.call<SplitResponse>('/api/v1/split', {
      key,
      body: form(file('file', book), field('ranges', ranges)),
    });
    expect(res.status).toBe(200);
    expect(res.json.data.parts).toHaveLength(100);
    const last = await download(ctx, res.json.data.parts[99]?.download.url ?? '');
    expect(await pageLabels(last.bytes)).toEqual(['book-10']);
  });
}
