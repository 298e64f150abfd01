// HTML to PDF against Chromium's own Page.printToPDF on a warm browser: the same Chromium, launched
// once by this process through Playwright and lowered to the server's tool priority (nice 10), printing
// the same page from the same files on the same paper, a fresh context per print as pdn makes. pdn end
// to end (upload, the job, the print, the download) timed in alternation with it. Then the server's
// memory with its Chromium warm, idle and at its peak under 4 calls at once, as the proportional set
// size of its process tree (a browser's processes share most of their pages; RSS counts them in each).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { HTML_ASSETS, NODE_DOCS_PAGE } from '@pdn/fixtures';
import { type Browser, chromium } from 'playwright-core';
import type { BenchContext, Scenario, ScenarioResult } from '../context.js';
import { samplePeak } from '../peak.js';
import { processTree, treePss } from '../process-memory.js';
import { formatBytes, formatMs, type Row, skippedRow } from '../report.js';
import { summarize, timeAlternating } from '../stats.js';

const SCENARIO = '8. HTML to PDF';
const TIME_TARGET = 1.2;
const CHROMIUM = '/usr/bin/chromium';
const ORIGIN = 'http://bench.invalid';
const CONCURRENT = 4;
/** The server runs its tools, Chromium included, at this nice value (engines/run-tool.ts). */
const TOOL_NICENESS = 10;

interface PageFiles {
  name: string;
  html: Buffer;
  assets: Map<string, Buffer>;
}

/**
 * Node.js's documentation page as committed, and in the full run the same page with its body 20 times
 * over (the quick run is CI's smoke test of the scenario, not its figures).
 */
async function pages(full: boolean): Promise<PageFiles[]> {
  const folder = join(HTML_ASSETS, NODE_DOCS_PAGE.folder);
  const html = await readFile(join(folder, NODE_DOCS_PAGE.page));
  const assets = new Map(
    await Promise.all(
      NODE_DOCS_PAGE.assets.map(
        async (name): Promise<[string, Buffer]> => [name, await readFile(join(folder, name))],
      ),
    ),
  );
  const text = html.toString('utf8');
  const body = /<body[^>]*>([\s\S]*)<\/body>/.exec(text)?.[1] ?? '';
  const long = text.replace(body, body.repeat(20));
  return [
    { name: 'Node.js string_decoder docs', html, assets },
    ...(full ? [{ name: 'the same, its body 20 times', html: Buffer.from(long), assets }] : []),
  ];
}

/** Chromium alone: a fresh context, the page's files answered from memory, Page.printToPDF, closed. */
async function viaChromium(browser: Browser, page: PageFiles, output: string): Promise<void> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  try {
    await context.route('**/*', async (route) => {
      const path = new URL(route.request().url()).pathname.slice(1);
      const body = path === 'index.html' ? page.html : page.assets.get(path);
      if (body === undefined) await route.abort('blockedbyclient');
      else await route.fulfill({ body });
    });
    const tab = await context.newPage();
    await tab.goto(`${ORIGIN}/index.html`, { waitUntil: 'load' });
    await writeFile(
      output,
      await tab.pdf({ format: 'A4', margin: { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' } }),
    );
  } finally {
    await context.close();
  }
}

async function viaPdn(context: BenchContext, page: PageFiles, output: string): Promise<number> {
  const result = await context.pdn.htmlToPdf({
    html: new Blob([page.html]),
    assets: Object.fromEntries([...page.assets].map(([name, bytes]) => [name, new Blob([bytes])])),
  });
  await context.pdn.download(result.download, output);
  return result.page_count;
}

/** This process's Chromium, and all it started so far, at the server's tool priority: renderers fork from
 * its zygote and keep its niceness, as the server's Chromium's do. */
async function lowerBrowser(): Promise<void> {
  for (const pid of await processTree(process.pid)) {
    if (pid === process.pid) continue;
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (!command.includes('chromium')) continue;
    try {
      setPriority(pid, TOOL_NICENESS);
    } catch {
      // Gone already.
    }
  }
}

async function htmlToPdf(context: BenchContext): Promise<ScenarioResult> {
  if (!existsSync(CHROMIUM))
    return { rows: [skippedRow(SCENARIO, 'pdn / Page.printToPDF', `${CHROMIUM} is not installed`)] };
  const serverPid = context.server.pid;
  const cold = await treePss(serverPid);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  await lowerBrowser();
  const rows: Row[] = [];
  try {
    for (const page of await pages(context.profile.name === 'full')) {
      let pageCount = 0;
      const times = await timeAlternating(
        context.profile.runs,
        async () => {
          pageCount = await viaPdn(context, page, join(context.workDir, 'html-pdn.pdf'));
        },
        () => viaChromium(browser, page, join(context.workDir, 'html-chromium.pdf')),
      );
      const pdn = summarize(times.task);
      const alone = summarize(times.baseline);
      const ratio = pdn.median / alone.median;
      rows.push({
        scenario: SCENARIO,
        case: `${page.name}, ${pageCount} A4 pages, pdn / Page.printToPDF on a warm browser: time`,
        pdn: `${formatMs(pdn.median)} ±${(pdn.spread * 100).toFixed(0)}%`,
        baseline: `${formatMs(alone.median)} ±${(alone.spread * 100).toFixed(0)}%`,
        ratio,
        target: `<= ${TIME_TARGET.toFixed(2)}`,
        met: ratio <= TIME_TARGET,
        note:
          'pdn: the upload, the job, a fresh context, the print and the download, in alternation with the ' +
          'same Chromium printing the same files from memory in a fresh context, both at nice 10',
      });
    }
  } finally {
    await browser.close();
  }
  // The server's Chromium is warm now: idle, then under calls at once.
  const idle = await treePss(serverPid);
  const [page] = await pages(false);
  if (page === undefined) return { rows };
  const peak = samplePeak(() => treePss(serverPid), 100);
  await Promise.all(
    Array.from({ length: CONCURRENT }, (_, i) =>
      viaPdn(context, page, join(context.workDir, `html-${i}.pdf`)),
    ),
  );
  const busy = await peak.stop();
  const memoryRow = (what: string, bytes: number, note: string): Row => ({
    scenario: SCENARIO,
    case: `server with a warm Chromium, ${what}: memory (PSS of the process tree)`,
    pdn: formatBytes(bytes),
    baseline: formatBytes(cold),
    ratio: null,
    target: '',
    met: null,
    note,
  });
  rows.push(
    memoryRow(
      'idle',
      idle,
      `baseline: the same server before its first page started Chromium; the difference, ${formatBytes(idle - cold)}, is the warm browser`,
    ),
    memoryRow(
      `${CONCURRENT} calls at once`,
      busy,
      `peak sampled every 100 ms while ${CONCURRENT} prints of the docs page ran (two at a time on two job slots)`,
    ),
  );
  return { rows };
}

export const htmlToPdfScenario: Scenario = { name: 'html-to-pdf', run: htmlToPdf };
