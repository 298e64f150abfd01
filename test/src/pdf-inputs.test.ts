// One inspection decides for compress, merge and split: files the rules accept work in
// all three, with every page. A PDF behind a binary (MacBinary) header reaches Ghostscript as a copy from
// its `%PDF-` on: handed the whole file, Ghostscript 10's PDF interpreter writes a blank page. A root
// /Count that says 1 over 3 real pages gives 3 pages everywhere.
import type { CompressResponse, MergeResponse, SplitResponse } from '@pdn/api-types';
import { labelledPdf, lyingCountPdf, macBinaryPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { download } from './harness/download.js';
import { field, file, form } from './harness/form.js';
import { poppler, readPdf, samplePages } from './harness/pdf-content.js';
import { useServer } from './harness/use-server.js';

describe('PDF inputs the inspection accepts', () => {
  const ctx = useServer();
  let key: string;
  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'inputs', plan: 'enterprise' });
  });

  /** Words on each page of a downloaded output, as poppler reads them. */
  async function wordsOf(url: string): Promise<string[][]> {
    const output = await download(ctx, url);
    const rendition = await readPdf(output.bytes, (count) => samplePages(count, count));
    return [...rendition.pages.values()].map((page) => [...page.words].sort());
  }

  it.skipIf(!poppler).each(['low', 'medium', 'high'])(
    'compresses a PDF behind a MacBinary header at %s, its pages intact',
    async (level) => {
      const res = await ctx.call<CompressResponse>('/api/v1/compress', {
        key,
        body: form(file('file', await macBinaryPdf(), 'mac.pdf'), field('level', level)),
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(res.json.data.page_count).toBe(2);
      expect(await wordsOf(res.json.data.download.url)).toEqual([
        ['1', 'm'],
        ['2', 'm'],
      ]);
    },
  );

  it.skipIf(!poppler)('merges and splits a PDF behind a MacBinary header', async () => {
    const mac = await macBinaryPdf();
    const merged = await ctx.call<MergeResponse>('/api/v1/merge', {
      key,
      body: form(file('files[]', mac, 'mac.pdf'), file('files[]', await labelledPdf('O', 1), 'o.pdf')),
    });
    expect(merged.status, JSON.stringify(merged.json)).toBe(200);
    expect(await wordsOf(merged.json.data.download.url)).toEqual([
      ['1', 'm'],
      ['2', 'm'],
      ['1', 'o'],
    ]);
    const split = await ctx.call<SplitResponse>('/api/v1/split', {
      key,
      body: form(file('file', mac, 'mac.pdf'), field('ranges', '2')),
    });
    expect(split.status, JSON.stringify(split.json)).toBe(200);
    expect(await wordsOf(split.json.data.parts[0]?.download.url ?? '')).toEqual([['2', 'm']]);
  });

  it('counts the pages in the tree, not the /Count, in all three operations', async () => {
    const liar = lyingCountPdf(3, 1);
    const compressed = await ctx.call<CompressResponse>('/api/v1/compress', {
      key,
      body: form(file('file', liar, 'liar.pdf')),
    });
    expect(compressed.status, JSON.stringify(compressed.json)).toBe(200);
    expect(compressed.json.data.page_count).toBe(3);
    const merged = await ctx.call<MergeResponse>('/api/v1/merge', {
      key,
      body: form(file('files[]', liar, 'liar.pdf'), file('files[]', liar, 'liar-2.pdf')),
    });
    expect(merged.json.data.page_count).toBe(6);
    const split = await ctx.call<SplitResponse>('/api/v1/split', {
      key,
      body: form(file('file', liar, 'liar.pdf'), field('ranges', '3,1-3')),
    });
    expect(split.json.data.parts.map((part) => part.page_count)).toEqual([1, 3]);
  });
});
