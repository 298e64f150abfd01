// `pdn pdf-to-images` against the real server, as the built binary: a corpus PDF's pages saved beside it
// under the server's names, as JPEG thumbnails into a folder, as one ZIP archive, `--async` collected by
// `pdn jobs wait -o`, and an option outside the contract refused before sending (exit 2).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { missing } from '../src/harness/tools.js';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const CORPUS = new URL('../../packages/fixtures/corpus/', import.meta.url).pathname;

describe.skipIf(missing('pdftoppm', 'the `pdn pdf-to-images` tests'))('pdn pdf-to-images', () => {
  const ctx = useServer();
  const ws = useWorkspace();
  let key: string;
  const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'cli-pages', plan: 'premium' });
    await ws.file('docs/memo.pdf', await readFile(join(CORPUS, 'distiller-rotation.pdf')));
  });

  it('saves each page beside the PDF under the server’s names', async () => {
    const run = await pdn(['pdf-to-images', 'docs/memo.pdf', '--dpi', '72']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.text).toMatch(/docs\/memo\.pdf → 2 images +2 pages as PNG/);
    expect((await readdir(ws.path('docs'))).sort()).toEqual([
      'memo.page-1.png',
      'memo.page-2.png',
      'memo.pdf',
    ]);
  });

  it('saves JPEG thumbnails of the pages asked into a folder, or one archive with --zip', async () => {
    const thumbs = await pdn([
      'pdf-to-images',
      'docs/memo.pdf',
      '--pages',
      '2',
      '--format',
      'jpeg',
      '--width',
      '120',
      '-o',
      'thumbs',
    ]);
    expect(thumbs.code, thumbs.stderr).toBe(0);
    expect(await readdir(ws.path('thumbs'))).toEqual(['memo.page-2.jpg']);
    const zip = await pdn(['pdf-to-images', 'docs/memo.pdf', '--zip', '-o', 'archive']);
    expect(zip.code, zip.stderr).toBe(0);
    expect((await readFile(ws.path('archive/memo.pages.zip'))).subarray(0, 2).toString()).toBe('PK');
  });

  it('submits with --async and saves the images with pdn jobs wait -o', async () => {
    const submitted = await pdn(['pdf-to-images', 'docs/memo.pdf', '--pages', '1', '--async', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const jobId = (jsonOf(submitted).results[0] as { job_id?: string }).job_id ?? '';
    const waited = await pdn(['jobs', 'wait', jobId, '-o', 'waited']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(await readdir(ws.path('waited'))).toEqual(['memo.page-1.png']);
  });

  it('refuses a quality the contract does not take before sending, with exit 2', async () => {
    const run = await pdn(['pdf-to-images', 'docs/memo.pdf', '--format', 'jpeg', '--quality', '101']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/quality must be a whole number from 1 to 100/);
  });
});
