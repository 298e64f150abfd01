// Work budgets per request, so that no call holds a job slot for long: a Free user's split of a
// 5000-page file into 100 ranges of `1-5000` once ran 367 s and stored 92 MB, and one Free request to
// OCR 5,000 pages held both cores for hours. Merge and split may write at most the plan's pages per
// request (Free 2,000), a compression read at most Free 100, OCR of documents Free 50 (openapi.yaml,
// "Pages per request"): refused with a 400 that names the budget before any work, no file left behind.
import { labelledPdf, manyPagesPdf } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallResult } from './contract/checked-fetch.js';
import { field, file, form, type Part } from './harness/form.js';
import { filesLeftSince, listFiles } from './harness/leftovers.js';
import { useServer } from './harness/use-server.js';

type ErrorBody = { error: { code: string; message: string } };

const FREE_PAGES = 2_000;

describe('pages written per request (Free plan)', () => {
  const ctx = useServer();
  let key: string;
  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'budget', plan: 'free' });
  });

  async function answer(path: string, ...parts: Part[]): Promise<CallResult<ErrorBody>> {
    return ctx.call<ErrorBody>(path, { key, body: form(...parts) });
  }

  it('refuses a split whose ranges ask for more, before writing anything', async () => {
    const before = await listFiles(ctx.server);
    const ranges = Array.from({ length: 100 }, () => '1-30').join(',');
    const res = await answer(
      '/api/v1/split',
      file('file', await labelledPdf('S', 30)),
      field('ranges', ranges),
    );
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe(
      `The 100 ranges ask for 3000 pages in all; the Free plan allows at most ${FREE_PAGES} pages written ` +
        'per request. Ask for fewer or shorter ranges, or split in several requests.',
    );
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  });

  it('refuses a merge of more pages, before writing anything', async () => {
    const before = await listFiles(ctx.server);
    const files = Array.from({ length: 20 }, (_, i) => file('files[]', manyPagesPdf(101), `part-${i}.pdf`));
    const res = await answer('/api/v1/merge', ...files);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toBe(
      `The 20 files have 2020 pages in all; the Free plan allows at most ${FREE_PAGES} pages written per ` +
        'request. Merge fewer pages per request.',
    );
    expect(await filesLeftSince(ctx.server, before)).toEqual([]);
  });

  it('accepts a split of exactly the budget', async () => {
    const res = await answer(
      '/api/v1/split',
      file('file', manyPagesPdf(1000)),
      field('ranges', '1-1000,1-1000'),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
  });

  it.each([
    ['/api/v1/compress', 'to compress', 101, 100, []],
    ['/api/v1/ocr/pdf', 'to read', 51, 50, []],
    ['/api/v1/ocr/pdf', 'to read', 51, 50, [field('pages', '1-51')]],
  ] as const)(
    'refuses %s of more pages than it may read, naming the budget',
    async (path, what, pages, allowed, extra) => {
      const before = await listFiles(ctx.server);
      const res = await answer(path, file('file', manyPagesPdf(pages)), ...extra);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe('invalid_input');
      expect(res.json.error.message).toMatch(
        new RegExp(`asks ${what} ${pages} pages; the Free plan allows at most ${allowed} pages per request`),
      );
      expect(await filesLeftSince(ctx.server, before)).toEqual([]);
    },
  );

  it('reads only the pages asked for: OCR of the budget out of a longer document is taken', async () => {
    const res = await answer('/api/v1/ocr/pdf', file('file', manyPagesPdf(60)), field('pages', '1-2'));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
  });
});
