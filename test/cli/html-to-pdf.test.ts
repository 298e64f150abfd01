// `pdn html-to-pdf` against the real server, as the built binary: a real documentation page printed
// with the stylesheets and images beside it, each sent under its path relative to the page, the print
// options passed on, `--async` collected by `pdn jobs wait -o`, and an asset outside the page's folder
// refused before sending (exit 2).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HTML_ASSETS, NODE_DOCS_PAGE } from '@pdn/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserMissing } from '../src/harness/browser.js';
import { pageCount } from '../src/harness/download.js';
import { useServer } from '../src/harness/use-server.js';
import { exportedPdn, jsonOf } from './run-pdn.js';
import { useWorkspace } from './workspace.js';

const run = promisify(execFile);

describe.skipIf(browserMissing !== undefined)('pdn html-to-pdf', () => {
  const ctx = useServer();
  const ws = useWorkspace();
  let key: string;
  const pdn = exportedPdn(ws, () => ({ key, baseUrl: ctx.server.baseUrl }));

  beforeAll(async () => {
    key = await ctx.server.createKey({ user: 'cli-html', plan: 'premium' });
    const folder = join(HTML_ASSETS, NODE_DOCS_PAGE.folder);
    for (const name of [NODE_DOCS_PAGE.page, ...NODE_DOCS_PAGE.assets])
      await ws.file(`docs/${name}`, await readFile(join(folder, name)));
  });

  it('prints the page with its assets, named as the page names them, on the paper asked', async () => {
    const printed = await pdn([
      'html-to-pdf',
      `docs/${NODE_DOCS_PAGE.page}`,
      ...NODE_DOCS_PAGE.assets.map((name) => `docs/${name}`),
      '--paper',
      'letter',
      '--landscape',
      '--footer',
      '<div style="font-size:9px">Sheet <span class="pageNumber"></span></div>',
      '--json',
      '-o',
      'decoder.pdf',
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(jsonOf(printed).results[0]?.data).toMatchObject({ asset_count: 5, paper_size: 'letter' });
    const { stdout: info } = await run('pdfinfo', [ws.path('decoder.pdf')]);
    expect(info).toMatch(/Page size:\s+792 x 612 pts \(letter\)/);
    const { stdout: text } = await run('pdftotext', [ws.path('decoder.pdf'), '-']);
    expect(text).toContain('String decoder');
    expect(text).toContain('Sheet 1');
  });

  it('submits with --async and saves the PDF with pdn jobs wait -o', async () => {
    await ws.file('one.html', Buffer.from('<h1>One page</h1>'));
    const submitted = await pdn(['html-to-pdf', 'one.html', '--async', '--json']);
    expect(submitted.code, submitted.stderr).toBe(0);
    const jobId = (jsonOf(submitted).results[0] as { job_id?: string }).job_id ?? '';
    const waited = await pdn(['jobs', 'wait', jobId, '-o', 'out']);
    expect(waited.code, waited.stderr).toBe(0);
    expect(await pageCount(await readFile(ws.path('out/one.pdf')))).toBe(1);
  });

  it('refuses an asset outside the page’s folder before sending, with exit 2', async () => {
    const refused = await pdn(['html-to-pdf', `docs/${NODE_DOCS_PAGE.page}`, 'one.html', '-o', 'x.pdf']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/one\.html is not inside the page’s folder docs/);
  });
});
