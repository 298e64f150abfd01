// The work budget of issue #11.8: a Free user's split of a 5000-page file into 100 ranges of `1-5000`
// ran 367 s and stored 92 MB. Merge and split may write at most the plan's pages per request
// (openapi.yaml, "Pages written per request"; Free 2,000), refused with a 400 that says so before
// anything is written, and no file is left behind.
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
});
