// HTML to PDF with the machine's Chromium: a page printed with its upload's stylesheet and image,
// everything else refused and listed, the budgets of time and pages cut short (a second here, so the
// hostile pages cost little), the browser started again after it died, and a server without Chromium
// answering the 501 naming it.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTML_ASSETS, ocrSample } from '@pdn/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConverterUnavailableError, InvalidInputError } from '../../errors.js';
import { CpuSlots } from '../cpu-slots.js';
import { detectTools } from '../tools.js';
import type { WorkFolders } from '../types.js';
import { createHtmlPdfEngine } from './index.js';
import { countPages } from './page-count.js';
import type { HtmlBudget, HtmlPage, PrintOptions } from './types.js';

const tools = await detectTools();
const log = { info: () => {}, warn: () => {} };
const BUDGET: HtmlBudget = { seconds: 1, maxPages: 3, holder: 'the test plan' };
const PRINT: PrintOptions = {
  paperSize: 'a4',
  landscape: false,
  marginMm: 10,
  printBackground: false,
  headerTemplate: undefined,
  footerTemplate: undefined,
  javascript: false,
  waitUntil: 'load',
  waitFor: undefined,
};

let dir: string;
let runs = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pdn-html-pdf-'));
});
afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** The browser's profile folders, in this test's folder (the server gives its work area). */
const folders: WorkFolders = {
  create: (prefix) => mkdtemp(join(dir, prefix)),
  remove: (folder) => rm(folder, { recursive: true, force: true }),
};

/** A work folder holding `files` (name to content); the page is `index.html` among them. */
async function upload(html: string, assets: Record<string, string | Uint8Array> = {}) {
  runs += 1;
  const workDir = join(dir, `run-${runs}`);
  await mkdir(workDir);
  await writeFile(join(workDir, 'upload-0'), html);
  const page: HtmlPage = {
    html: { path: join(workDir, 'upload-0'), label: '"index.html"' },
    assets: await Promise.all(
      Object.entries(assets).map(async ([name, content], index) => {
        const path = join(workDir, `upload-${index + 1}`);
        await writeFile(path, content);
        return { name, path };
      }),
    ),
  };
  return { page, job: { workDir, signal: new AbortController().signal } };
}

// Each call starts pages, and the first a browser: seconds each on a loaded machine.
describe.skipIf(tools.chromium === undefined)('HTML to PDF with Chromium', { timeout: 30_000 }, () => {
  const engine = createHtmlPdfEngine({ tools, cpuSlots: new CpuSlots(1), folders, log });
  afterAll(() => engine.close());

  it('prints the page with its assets, and lists what it asked for beyond them', async () => {
    const { page, job } = await upload(
      '<link rel="stylesheet" href="css/a.css"><img src="img/scan.png"><img src="https://example.com/x.png"><img src="nothing.png"><p>Printed</p>',
      { 'css/a.css': 'p { color: red }', 'img/scan.png': (await ocrSample('eng', 'png')).bytes },
    );
    const output = await engine.toPdf(page, PRINT, { ...BUDGET, seconds: 30 }, job);
    expect(output.pageCount).toBe(1);
    expect(await countPages(output.path)).toBe(1);
    expect((await readFile(output.path)).subarray(0, 5).toString()).toBe('%PDF-');
    expect(output.blocked).toEqual(['https://example.com/x.png', 'http://page.pdn.invalid/nothing.png']);
  });

  it.each([
    ['a script that never returns', 'script-loop.html', { javascript: true }, 'loading the page'],
    ['a page never ready', 'never-ready.html', { waitFor: '#ready' }, 'waiting for `wait_for`'],
  ])('cuts %s at the budget, then prints the next page', async (_, file, options, step) => {
    const hostile = await upload(await readFile(join(HTML_ASSETS, 'hostile', file), 'utf8'));
    // Seconds enough for a loaded machine to reach the step that never ends: the budget must cut that
    // step, not the page's load; and the next page, printed while the cut page's renderer may still be
    // winding down, gets the unhurried budget every other print here has.
    const error = await engine
      .toPdf(hostile.page, { ...PRINT, ...options }, { ...BUDGET, seconds: 3 }, hostile.job)
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^The page did not finish within 3 seconds \\(it was still ${step.replace(/[`]/g, '.')}\\); the test plan allows`,
      ),
    );
    const next = await upload('<p>Next</p>');
    expect((await engine.toPdf(next.page, PRINT, { ...BUDGET, seconds: 30 }, next.job)).pageCount).toBe(1);
  });

  it('refuses a page over the page budget, having printed one page past it at most', async () => {
    const { page, job } = await upload(
      await readFile(join(HTML_ASSETS, 'hostile', 'endless-page.html'), 'utf8'),
    );
    const error = await engine
      .toPdf(page, { ...PRINT, javascript: true }, { ...BUDGET, seconds: 30 }, job)
      .catch((e) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/^The page prints to more than 3 pages; the test plan allows/);
    expect(await countPages(join(job.workDir, 'page.pdf'))).toBe(4);
  });

  it('never starts for a caller gone before its turn', async () => {
    const { page, job } = await upload('<p>never printed</p>');
    const aborted = new AbortController();
    aborted.abort();
    const error = await engine.toPdf(page, PRINT, BUDGET, { ...job, signal: aborted.signal }).catch((e) => e);
    expect((error as Error).name).toBe('AbortError');
  });

  it('stops a page at work when its caller goes away, long before the budget', async () => {
    const { page, job } = await upload(
      await readFile(join(HTML_ASSETS, 'hostile', 'never-ready.html'), 'utf8'),
    );
    const leaving = new AbortController();
    const printing = engine.toPdf(
      page,
      { ...PRINT, waitFor: '#ready' },
      { ...BUDGET, seconds: 600 },
      {
        ...job,
        signal: leaving.signal,
      },
    );
    setTimeout(() => leaving.abort(), 500);
    expect((await printing.catch((e) => e)).name).toBe('ToolAbortedError');
  });
});

describe('HTML to PDF without Chromium', () => {
  it('answers 501 naming Chromium', async () => {
    const engine = createHtmlPdfEngine({ tools: {}, cpuSlots: new CpuSlots(1), folders, log });
    const { page, job } = await upload('<p>x</p>');
    const error = await engine.toPdf(page, PRINT, BUDGET, job).catch((e) => e);
    expect(error).toBeInstanceOf(ConverterUnavailableError);
    expect((error as Error).message).toMatch(/^HTML to PDF needs Chromium, which is not installed/);
  });
});
