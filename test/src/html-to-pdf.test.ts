// HTML to PDF over HTTP with the server's Chromium: a real documentation page with its stylesheets
// and images, fonts from the upload, paper, margins, header, footer and backgrounds read back from the
// PDF, scripts only when asked, the fields refused with 400, the same operation as a job, nothing
// reached outside the upload, and hostile pages cut by the plan's budgets. Every answer is checked
// against the contract.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { HealthResponse, HtmlToPdfResponse, HtmlToPdfResult } from '@pdn/api-types';
import { HTML_ASSETS, NODE_DOCS_PAGE, ocrSample } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing } from './harness/browser.js';
import { download } from './harness/download.js';
import { field, form, type Part } from './harness/form.js';
import { submitJob, waitForJob } from './harness/jobs.js';
import { marks, readPdf } from './harness/pdf-content.js';
import { useServer } from './harness/use-server.js';

const run = promisify(execFile);
const HOSTILE = join(HTML_ASSETS, 'hostile');
/** A face no fallback picks for plain text (Debian's serif is DejaVu Serif Book): seen, it was loaded. */
const FONT = join(
  import.meta.dirname,
  '../../node_modules/dejavu-fonts-ttf/ttf/DejaVuSerifCondensed-BoldItalic.ttf',
);

type Answer = HtmlToPdfResponse & { error: { code: string; message: string } };

function page(html: string, filename = 'page.html'): Part {
  return { name: 'html', file: Buffer.from(html), filename, type: 'text/html' };
}

function asset(name: string, bytes: Uint8Array, type = 'application/octet-stream'): Part {
  return { name: 'assets[]', file: bytes, filename: name, type };
}

async function hostile(name: string): Promise<Part> {
  return page(await readFile(join(HOSTILE, name), 'utf8'), name);
}

/** What poppler's `tool` prints of `pdf`: its text (`pdftotext`, `-bbox` for the words' boxes), its page size, its fonts. */
async function poppler(tool: 'pdftotext' | 'pdfinfo' | 'pdffonts', pdf: Uint8Array, ...args: string[]) {
  const dir = await mkdtemp(join(tmpdir(), 'pdn-e2e-html-'));
  try {
    await writeFile(join(dir, 'out.pdf'), pdf);
    const { stdout } = await run(tool, [
      ...args,
      join(dir, 'out.pdf'),
      ...(tool === 'pdftotext' ? ['-'] : []),
    ]);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether the first page is `width` x `height` points, as pdfinfo reads it (Chromium rounds to its pixels). */
async function paperIs(pdf: Uint8Array, width: number, height: number): Promise<boolean> {
  const size = /Page size:\s+([\d.]+) x ([\d.]+) pts/.exec(await poppler('pdfinfo', pdf));
  return Math.abs(Number(size?.[1]) - width) < 2 && Math.abs(Number(size?.[2]) - height) < 2;
}

/** The first page drawn, and how many images it shows. */
async function firstPage(pdf: Uint8Array) {
  const content = (await readPdf(pdf, () => [1])).pages.get(1);
  if (content === undefined) throw new Error('no first page');
  return content;
}

describe.skipIf(browserMissing !== undefined)('HTML to PDF', () => {
  const ctx = useServer();
  let premium: string;
  let free: string;

  beforeAll(async () => {
    premium = await ctx.server.createKey({ user: 'printer', plan: 'premium' });
    free = await ctx.server.createKey({ user: 'printer-free', plan: 'free' });
  });

  const htmlToPdf = (key: string, ...parts: Part[]) =>
    ctx.call<Answer>('/api/v1/html-to-pdf', { key, body: form(...parts) });

  async function printed(res: { status: number; json: Answer }): Promise<Buffer> {
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const pdf = await download(ctx, res.json.data.download.url);
    expect(pdf.bytes.length).toBe(res.json.data.size);
    return pdf.bytes;
  }

  it("prints Node.js's documentation page with its assets, refusing its Google Fonts link", async () => {
    const folder = join(HTML_ASSETS, NODE_DOCS_PAGE.folder);
    const res = await htmlToPdf(
      premium,
      page(await readFile(join(folder, NODE_DOCS_PAGE.page), 'utf8'), NODE_DOCS_PAGE.page),
      ...(await Promise.all(
        NODE_DOCS_PAGE.assets.map(async (name) => asset(name, await readFile(join(folder, name)))),
      )),
    );
    const pdf = await printed(res);
    expect(res.json.data).toMatchObject({
      filename: 'string_decoder.pdf',
      paper_size: 'a4',
      landscape: false,
      asset_count: 5,
    });
    expect(res.json.data.page_count).toBeGreaterThan(1);
    expect(res.json.data.blocked_urls).toEqual([
      'https://fonts.googleapis.com/css?family=Lato:400,700,400italic&display=fallback',
    ]);
    const text = await poppler('pdftotext', pdf);
    expect(text).toContain('String decoder');
    expect(text).toContain('stringDecoder.write(buffer)');
    expect(await paperIs(pdf, 595.3, 841.9)).toBe(true);
  });

  it('loads fonts and images from the upload, under the paths the page names', async () => {
    const html = page(`<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="css/print.css">
      <h1>Fonts from the upload</h1><img src="img/scan%20one.png" width="200">`);
    const css = asset(
      'css/print.css',
      Buffer.from(
        '@font-face { font-family: Body; src: url(../fonts/face.ttf); } body { font-family: Body; }',
      ),
    );
    const image = asset('img/scan one.png', (await ocrSample('eng', 'png')).bytes);
    const res = await htmlToPdf(premium, html, css, asset('fonts/face.ttf', await readFile(FONT)), image);
    const pdf = await printed(res);
    expect(res.json.data.blocked_urls).toEqual([]);
    expect(await poppler('pdffonts', pdf)).toContain('DejaVuSerifCondensed-BoldItalic');
    expect((await firstPage(pdf)).images).toBe(1);
    // Without the font uploaded, the page asks for it in vain and falls back.
    const without = await htmlToPdf(premium, html, css, image);
    expect(without.json.data.blocked_urls).toEqual(['http://page.pdn.invalid/fonts/face.ttf']);
    expect(await poppler('pdffonts', await printed(without))).not.toContain(
      'DejaVuSerifCondensed-BoldItalic',
    );
  });

  it('prints on the paper asked for, turned, inside the margins, with header, footer and backgrounds', async () => {
    const body =
      '<!doctype html><title>Quarterly</title><style>body { background: #000; color: #fff; }</style><p>Inside the margins</p>';
    const res = await htmlToPdf(
      premium,
      page(body),
      field('paper_size', 'letter'),
      field('landscape', 'true'),
      field('margin_mm', '40'),
      field('print_background', 'true'),
      field('header_template', '<div style="font-size:10px">Head of <span class="title"></span></div>'),
      field(
        'footer_template',
        '<div style="font-size:10px">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      ),
    );
    const pdf = await printed(res);
    expect(res.json.data).toMatchObject({ paper_size: 'letter', landscape: true, page_count: 1 });
    expect(await paperIs(pdf, 792, 612)).toBe(true);
    const text = await poppler('pdftotext', pdf);
    expect(text).toContain('Head of Quarterly');
    expect(text).toContain('Page 1 of 1');
    // 40 mm is 113.4 points, and the body's own margin 8 px (6 points): its first word starts there.
    const boxes = await poppler('pdftotext', pdf, '-bbox');
    const inside = /<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>Inside<\/word>/.exec(boxes);
    expect(Number(inside?.[1])).toBeCloseTo(119.4, 0);
    // The black background is printed, and left out unless asked for: browsers print none by default.
    const plain = await printed(await htmlToPdf(premium, page(body)));
    expect(marks((await firstPage(pdf)).raster)).toBeGreaterThan(10 * marks((await firstPage(plain)).raster));
  });

  it('runs scripts only when asked, and waits for `wait_for`', async () => {
    const scripted = `<!doctype html><p id="state">as written</p><script>
      document.getElementById('state').textContent = 'changed by script';
      setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="ready">added later</p>'), 300);
    </script>`;
    const off = await poppler('pdftotext', await printed(await htmlToPdf(premium, page(scripted))));
    expect(off).toContain('as written');
    const on = await htmlToPdf(
      premium,
      page(scripted),
      field('javascript', 'true'),
      field('wait_for', '#ready'),
    );
    const text = await poppler('pdftotext', await printed(on));
    expect(text).toContain('changed by script');
    expect(text).toContain('added later');
  });

  it('runs as a job with Prefer: respond-async', async () => {
    const job = await submitJob(
      ctx,
      premium,
      '/api/v1/html-to-pdf',
      form(page('<h1>As a job</h1>', 'job.htm'), field('paper_size', 'a5')),
    );
    expect(job.operation).toBe('html_to_pdf');
    const done = await waitForJob(ctx, premium, job.id);
    expect(done.status).toBe('succeeded');
    const result = done.result as HtmlToPdfResult;
    expect(result).toMatchObject({ filename: 'job.pdf', page_count: 1, paper_size: 'a5', asset_count: 0 });
    const pdf = (await download(ctx, result.download.url)).bytes;
    expect(await paperIs(pdf, 419.5, 595.3)).toBe(true);
  });

  it.each([
    ['an unknown paper size', [field('paper_size', 'b5')], /`paper_size` must be one of a4, letter, legal/],
    [
      'a margin too wide',
      [field('margin_mm', '80')],
      /`margin_mm` must be a number of millimetres from 0 to 50/,
    ],
    ['a flag that is not one', [field('javascript', 'yes')], /`javascript` must be one of true, false/],
    [
      'an asset that climbs out',
      [asset('../secret.css', Buffer.from(''))],
      /Asset 1 is named "..\/secret.css"/,
    ],
    [
      'an asset sent twice',
      [asset('a.css', Buffer.from('')), asset('a.css', Buffer.from(''))],
      /Asset 2 is named "a.css", as an asset before it/,
    ],
    [
      'a selector that is none',
      [field('wait_for', 'p[')],
      /`wait_for` must be a CSS selector; "p\[" is not one/,
    ],
  ])('refuses %s with 400', async (_, parts, message) => {
    const res = await htmlToPdf(premium, page('<p>fine</p>'), ...parts);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_input');
    expect(res.json.error.message).toMatch(message);
  });

  it('refuses a request without the page', async () => {
    const res = await htmlToPdf(premium, asset('a.css', Buffer.from('')));
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/exactly one page in the part `html`; got 0/);
  });

  describe('isolation', () => {
    let listener: Server;
    const heard: string[] = [];

    beforeAll(async () => {
      listener = createServer((req, res) => {
        heard.push(req.url ?? '');
        res.end('reached');
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await new Promise((resolve) => listener.close(resolve));
    });

    it('reaches no host, no local listener and no file outside the upload, scripts or not', async () => {
      const address = `127.0.0.1:${(listener.address() as AddressInfo).port}`;
      const html = (await readFile(join(HOSTILE, 'reach-out.html'), 'utf8')).replaceAll('LISTENER', address);
      for (const javascript of ['false', 'true']) {
        const res = await htmlToPdf(premium, page(html), field('javascript', javascript));
        const text = await poppler('pdftotext', await printed(res));
        expect(text).toContain('Nothing here may leave the browser');
        expect(text).not.toMatch(/root:|reached/);
        expect(res.json.data.blocked_urls).toEqual(
          expect.arrayContaining([`http://${address}/style.css`, `http://${address}/image.png`]),
        );
      }
      expect(heard).toEqual([]);
    });
  });

  describe('hostile pages, cut by the Free plan budgets', () => {
    it.each([
      ['a script that never returns', 'script-loop.html', [field('javascript', 'true')], 'loading the page'],
      [
        'a page that never stops asking',
        'endless-requests.html',
        [field('javascript', 'true'), field('wait_until', 'network_idle')],
        'loading the page',
      ],
      ['a page never ready', 'never-ready.html', [field('wait_for', '#ready')], 'waiting for `wait_for`'],
    ])('cuts %s at 10 seconds with 400', async (_, name, parts, step) => {
      const res = await htmlToPdf(free, await hostile(name), ...parts);
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      expect(res.json.error.message).toBe(
        `The page did not finish within 10 seconds (it was still ${step}); the Free plan allows at most 10 seconds of loading, scripts and printing per request. Check that its scripts end, that \`wait_for\` names an element the page makes, and that with \`wait_until=network_idle\` it stops asking for resources.`,
      );
    });

    it('refuses a page over the page budget, and prints the next page as ever', async () => {
      const res = await htmlToPdf(free, await hostile('endless-page.html'), field('javascript', 'true'));
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      expect(res.json.error.message).toBe(
        'The page prints to more than 100 pages; the Free plan allows at most 100 pages per request. Send a shorter page, or split it in several requests.',
      );
      const after = await htmlToPdf(free, await hostile('endless-page.html'));
      expect((await poppler('pdftotext', await printed(after))).trim()).toBe('Scripts are off: one page.');
    });
  });
});

describe('HTML to PDF on a server without Chromium', () => {
  // A PATH holding only prlimit, which OCR needs to start: the server finds no other tool, Chromium
  // among them, and uses its fallbacks for the rest.
  const bin = mkdtempSync(join(tmpdir(), 'pdn-e2e-path-'));
  const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));
  if (prlimit !== undefined) symlinkSync(prlimit, join(bin, 'prlimit'));
  const ctx = useServer({ env: { PATH: bin } });
  afterAll(() => rm(bin, { recursive: true, force: true }));

  it('answers 501 converter_unavailable naming Chromium, and /healthz says it is absent', async () => {
    const key = await ctx.server.createKey({ user: 'no-browser', plan: 'premium' });
    const res = await ctx.call<Answer>('/api/v1/html-to-pdf', {
      key,
      body: form(page('<p>never printed</p>')),
    });
    expect(res.status).toBe(501);
    expect(res.json.error.code).toBe('converter_unavailable');
    expect(res.json.error.message).toMatch(
      /^HTML to PDF needs Chromium, which is not installed on this server/,
    );
    const health = await ctx.call<HealthResponse>('/healthz');
    expect(health.json.data.converters.html).toEqual({ available: false, tool: 'chromium', version: null });
  });
});
